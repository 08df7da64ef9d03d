// Einsum-12 -> Einsum-7 and Unique-11 -> Unique-10, both one op.
// Einsum: ONNX follows numpy, whose implicit output is the labels that occur exactly once in
// the whole equation; OpenVINO's implicit output keeps a label repeated within one subscript.
// The equation is therefore always written explicitly, with numpy's output.
// Unique: same outputs in the same order (Y, indices, inverse_indices, counts) and the same
// ordering (ascending, stable, so indices are first occurrences; or first-occurrence order).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"

namespace mo {

namespace {

// The labels of one subscript, "..." as '.'; fails on anything else.
std::string subscript_labels(ExtractContext& c, const std::string& text, const std::string& equation) {
    std::string labels;
    for (size_t i = 0; i < text.size(); ++i) {
        if (std::isalpha(static_cast<unsigned char>(text[i]))) {
            labels += text[i];
        } else if (text.compare(i, 3, "...") == 0 && labels.find('.') == std::string::npos) {
            labels += '.';
            i += 2;
        } else {
            c.fail("Einsum equation '" + equation + "' has an invalid subscript '" + text + "'",
                   "labels are letters and at most one '...' per subscript");
        }
    }
    return labels;
}

void einsum(ExtractContext& c) {
    std::string equation = c.s("equation", "");
    equation.erase(std::remove_if(equation.begin(), equation.end(),
                                  [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }),
                   equation.end());
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> inputs;
    for (size_t begin = 0;;) {
        const size_t comma = lhs.find(',', begin);
        inputs.push_back(subscript_labels(c, lhs.substr(begin, comma - begin), equation));
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    if (inputs.size() != c.input_count())
        c.fail("Einsum equation '" + equation + "' has " + std::to_string(inputs.size()) + " input subscripts for " +
               std::to_string(c.input_count()) + " inputs");
    std::string all;
    for (const auto& s : inputs) all += s;
    const bool dots = all.find('.') != std::string::npos;

    std::string output;
    if (arrow == std::string::npos) {
        for (char l : all)
            if (l != '.' && std::count(all.begin(), all.end(), l) == 1) output += l;
        std::sort(output.begin(), output.end());  // ASCII: capitals first, as numpy
        if (dots) output = std::string(1, '.').append(output);
    } else {
        output = subscript_labels(c, equation.substr(arrow + 2), equation);
        for (char l : output) {
            if (std::count(output.begin(), output.end(), l) > 1)
                c.fail("Einsum equation '" + equation + "' repeats a label in its output");
            if (l != '.' && all.find(l) == std::string::npos)
                c.fail("Einsum equation '" + equation + "' has an output label in no input subscript");
        }
        const bool out_dots = output.find('.') != std::string::npos;
        if (out_dots && !dots) c.fail("Einsum equation '" + equation + "' has '...' only in its output");
        // numpy sums the "..." dims away then; OpenVINO requires them in the output.
        if (dots && !out_dots) c.unsupported("Einsum equation '" + equation + "' without '...' in its output");
    }

    std::string explicit_equation;
    auto spell = [](const std::string& labels) {
        std::string s;
        for (char l : labels) {
            if (l == '.') s.append(3, '.');
            else s.push_back(l);
        }
        return s;
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i) explicit_equation.push_back(',');
        explicit_equation.append(spell(inputs[i]));
    }
    explicit_equation.append("->").append(spell(output));
    c.become("Einsum", {{"equation", explicit_equation}});
}

void unique(ExtractContext& c) {
    std::vector<OutPort> inputs{c.input(0)};
    if (c.has("axis")) inputs.push_back(c.i64("axis", c.i("axis")));
    Node u = c.add("Unique", "", inputs,
                   {{"sorted", c.i("sorted", 1) != 0},
                    {"index_element_type", ElementType::i64},
                    {"count_element_type", ElementType::i64}});
    for (size_t j = 0; j < std::min<size_t>(4, c.output_count()); ++j) c.set_output(j, u.out(j));
}

}  // namespace

void register_onnx_einsum_unique(ExtractorRegistry& r) {
    r.add({"onnx", "", "Einsum", since(12), einsum});
    r.add({"onnx", "", "Unique", since(11), unique});
}

}  // namespace mo
