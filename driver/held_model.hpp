// A model converted (or read back from an IR) and held in memory instead of written: what the
// Python module's mo.Model wraps. Conversion stops short of f16 compression, which save()
// applies to a clone, as OpenVINO's save_model does: one held model saves compressed or not,
// runs with f32 weights, and writes the bytes `mo` writes with the same flags.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/evaluator.hpp"
#include "core/graph.hpp"
#include "core/options.hpp"
#include "core/tool_api.hpp"
#include "driver/convert.hpp"
#include "driver/pipeline.hpp"
#include "validate/compare.hpp"

namespace mo {

// A model input or output as a user names it.
struct ModelPort {
    std::string name;                // the first tensor name, else the node name
    std::vector<std::string> names;  // every tensor name (may be empty)
    ElementType type = ElementType::dynamic;
    PartialShape shape;
};

// Model.validate(): one comparison per output, in output order.
struct ModelValidation {
    bool ok = false;
    std::vector<Comparison> outputs;
    std::string text;  // one line per output (format_comparison)
};

class MO_TOOL_API HeldModel {
public:
    // Converts as convert() does, writing nothing: checks, plugins, load, extraction and every
    // transformation except CompressFloatConstantsToF16 (whose turn comes in save()).
    static std::unique_ptr<HeldModel> convert(const ConversionOptions& options);
    // Reads an IR (loaders/ir/ir_reader.hpp) with the ops of the plugins in `extensions`.
    static std::unique_ptr<HeldModel> read_ir(const std::string& xml_path, const std::vector<std::string>& extensions);
    ~HeldModel();

    const Graph& graph() const { return *graph_; }
    const ConversionOptions& options() const { return options_; }
    std::vector<ModelPort> inputs() const;
    std::vector<ModelPort> outputs() const;

    // Writes `xml_path` (which must end in .xml) and the .bin beside it; the IR's name is the
    // file's stem. With compress_to_fp16, a clone of the graph runs the transformations from
    // CompressFloatConstantsToF16 on. Missing directories are created; a failure leaves neither
    // files nor the directories it made.
    ConversionResult save(const std::string& xml_path, bool compress_to_fp16) const;

    // Evaluates the model (core/evaluator.hpp) on inputs in parameter order. The variables of a
    // stateful model keep their values from call to call until reset_state(). Calls on one
    // model are serialised.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs);
    void reset_state();
    // Evaluates with fresh variables and compares with `expected` (one per output, in order).
    ModelValidation validate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                             const Tolerance& tolerance) const;
    // The seeded random inputs of `mo --validate` and `mo-run` without input files.
    std::vector<Tensor> random_inputs(uint64_t seed) const;

private:
    HeldModel() = default;

    ConversionOptions options_;
    std::unique_ptr<Pipeline> pipeline_;  // before the graph, which refers to its op registry
    std::unique_ptr<Graph> graph_;
    std::mutex run_mutex_;
    VariableState state_;
};

}  // namespace mo
