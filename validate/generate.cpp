#include "validate/generate.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/error.hpp"
#include "validate/npy.hpp"
#include "validate/runner.hpp"
#include "validate/validate.hpp"

namespace mo {

namespace {

enum class Input { InputIds, AttentionMask, PositionIds, BeamIdx };

std::string shape_text(const Shape& s) { return "[" + PartialShape(s).to_string() + "]"; }

Input input_role(const Node& p) {
    for (auto [name, role] : {std::pair{"input_ids", Input::InputIds}, std::pair{"attention_mask", Input::AttentionMask},
                              std::pair{"position_ids", Input::PositionIds}, std::pair{"beam_idx", Input::BeamIdx}})
        if (p.answers_to(name)) return role;
    throw Error("--generate fills the inputs input_ids, attention_mask, position_ids and beam_idx, but the model also has '" +
                    (p.out(0).names().empty() ? p.name() : p.out(0).names().front()) + "'",
                p.describe(), "generate with a decoder-only LLM converted with --transform MakeStateful");
}

// [rows, columns] of `type` filled by value(row, column).
template <typename F>
Tensor table(ElementType type, int64_t rows, int64_t columns, F value) {
    std::vector<int64_t> v;
    v.reserve(static_cast<size_t>(rows * columns));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < columns; ++c) v.push_back(value(r, c));
    Tensor t = Tensor::from_vector<int64_t>(v, {rows, columns});
    return type == ElementType::i64 ? t : t.convert(type);
}

// Tokens already in a state read back from files: the sequence axis of the first variable found.
int64_t tokens_in_state(const Graph& ir, const VariableState& state) {
    for (const Node& n : ir.nodes()) {
        if (!n.is("ReadValue")) continue;
        auto it = state.find(n.attr<std::string>("variable_id"));
        if (it == state.end()) continue;
        const PartialShape& shape = n.attr<PartialShape>("variable_shape");
        for (size_t axis = 1; shape.rank_is_static() && axis < shape.rank(); ++axis)
            if (!shape[axis].is_static() && axis < it->second.shape().size()) return it->second.shape()[axis];
    }
    return 0;
}

size_t logits_output(const Graph& ir) {
    for (size_t i = 0; i < ir.results().size(); ++i)
        if (output_name(ir.results()[i], i) == "logits") return i;
    if (ir.results().empty()) throw Error("the model has no output", ir.source_path);
    return 0;
}

}  // namespace

GenerateResult generate_greedy(const Graph& ir, const Tensor& prompt, int64_t new_tokens, VariableState& state) {
    if (new_tokens < 1) throw Error("--generate needs a number of tokens of 1 or more", ir.source_path);
    bool stateful = false;
    for (const Node& n : ir.nodes()) stateful = stateful || n.is("ReadValue");
    if (!stateful)
        throw Error("the model has no variables (ReadValue), so it cannot carry its KV cache from token to token",
                    ir.source_path, "convert the LLM with --transform MakeStateful");
    if (prompt.shape().size() != 2 || !is_integral(prompt.type()) || prompt.shape()[1] < 1)
        throw Error("the prompt must be integer input_ids [batch, length], not " + std::string(ir_name(prompt.type())) +
                        " " + shape_text(prompt.shape()),
                    ir.source_path);
    std::vector<Input> roles;
    bool has_ids = false;
    for (const Node& p : ir.parameters()) {
        roles.push_back(input_role(p));
        has_ids = has_ids || roles.back() == Input::InputIds;
    }
    if (!has_ids) throw Error("the model has no input named input_ids", ir.source_path);
    const size_t logits_index = logits_output(ir);

    const int64_t batch = prompt.shape()[0];
    int64_t past = tokens_in_state(ir, state);
    std::vector<std::vector<int64_t>> ids(static_cast<size_t>(batch));
    const std::vector<int64_t> prompt_ids = prompt.to_i64();
    for (int64_t b = 0; b < batch; ++b)
        ids[static_cast<size_t>(b)].assign(prompt_ids.begin() + b * prompt.shape()[1], prompt_ids.begin() + (b + 1) * prompt.shape()[1]);

    GenerateResult result;
    result.tokens.resize(static_cast<size_t>(batch));
    for (int64_t step = 0; step < new_tokens; ++step) {
        const int64_t length = static_cast<int64_t>(ids[0].size());
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < roles.size(); ++i) {
            const ElementType type = ir.parameters()[i].out(0).type();
            switch (roles[i]) {
            case Input::InputIds:
                inputs.push_back(table(type, batch, length, [&](int64_t b, int64_t c) { return ids[size_t(b)][size_t(c)]; }));
                break;
            case Input::AttentionMask:
                inputs.push_back(table(type, batch, past + length, [](int64_t, int64_t) { return int64_t{1}; }));
                break;
            case Input::PositionIds:
                inputs.push_back(table(type, batch, length, [&](int64_t, int64_t c) { return past + c; }));
                break;
            case Input::BeamIdx: {
                std::vector<int64_t> order(static_cast<size_t>(batch));
                std::iota(order.begin(), order.end(), int64_t{0});
                Tensor t = Tensor::from_vector<int64_t>(order, {batch});
                inputs.push_back(type == ElementType::i64 ? t : t.convert(type));
                break;
            }
            }
        }
        const auto start = std::chrono::steady_clock::now();
        std::vector<Tensor> outputs = evaluate(ir, inputs, state);
        result.call_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        const Tensor& logits = outputs.at(logits_index);
        const Shape& ls = logits.shape();
        if (ls.size() != 3 || ls[0] != batch || ls[1] < 1 || ls[2] < 1 || !is_float(logits.type()))
            throw Error("the logits output is " + std::string(ir_name(logits.type())) + " " + shape_text(ls) +
                            ", not float [batch, length, vocabulary]",
                        ir.source_path);
        const std::vector<double> values = logits.to_f64();
        const int64_t vocab = ls[2];
        for (int64_t b = 0; b < batch; ++b) {
            const double* row = values.data() + (b * ls[1] + ls[1] - 1) * vocab;
            const int64_t next = std::max_element(row, row + vocab) - row;  // the first of equal maxima
            result.tokens[size_t(b)].push_back(next);
            ids[size_t(b)] = {next};
        }
        past += length;
    }
    return result;
}

GenerateResult run_generate(const Graph& ir, const GenerateOptions& options) {
    VariableState state;
    if (!options.state_dir.empty()) state = read_state_dir(ir, options.state_dir);
    GenerateResult r = generate_greedy(ir, read_npy(options.prompt_file), options.new_tokens, state);
    if (!options.state_dir.empty()) write_state_dir(state, options.state_dir);
    return r;
}

}  // namespace mo
