#include "validate/validate.hpp"

#include "core/error.hpp"

namespace mo {

std::string output_name(const Node& result, size_t index) {
    if (result.input_count() > 0 && result.in(0).connected()) {
        const auto& names = result.in(0).src().names();
        if (!names.empty()) return names.front();
    }
    return result.name().empty() ? "output " + std::to_string(index) : result.name();
}

bool ValidationReport::ok() const {
    for (const auto& c : outputs)
        if (!c.ok) return false;
    return true;
}

std::string ValidationReport::text() const {
    std::string s;
    for (const auto& c : outputs) s += format_comparison(c) + "\n";
    return s;
}

ValidationReport validate(const Graph& candidate, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& expected, const Tolerance& tol) {
    std::vector<Tensor> actual = evaluate(candidate, inputs);
    if (actual.size() != expected.size())
        throw Error("the model has " + std::to_string(actual.size()) + " outputs but " +
                        std::to_string(expected.size()) + " reference values were given",
                    candidate.source_path, "give one reference value per model output, in the model's output order");
    ValidationReport report;
    for (size_t i = 0; i < actual.size(); ++i)
        report.outputs.push_back(compare(actual[i], expected[i], tol, output_name(candidate.results()[i], i)));
    return report;
}

ValidationReport validate(const Graph& reference, const Graph& candidate, const std::vector<Tensor>& inputs,
                          const Tolerance& tol) {
    return validate(candidate, inputs, evaluate(reference, inputs), tol);
}

}  // namespace mo
