#include "driver/load_and_transform.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/graph_data.hpp"
#include "core/progress.hpp"

namespace mo {

namespace {

// A flag whose transformation MO_DISABLED_TRANSFORMS turned off would be ignored silently, while
// the IR's conversion_parameters still list it.
void check_flags_have_their_transformations(const ConversionOptions& o, const TransformRegistry& registry) {
    auto needs = [&](const std::string& given, const char* id) {
        const Transformation* t = registry.find(id);
        if (!given.empty() && t && !registry.is_enabled(*t))
            throw Error(given + " needs the transformation " + std::string(id) + ", which MO_DISABLED_TRANSFORMS turns off",
                        {}, "drop the flag, or take " + std::string(id) + " out of MO_DISABLED_TRANSFORMS");
    };
    std::string preprocessing;
    auto flag = [&](bool given, const char* name) {
        if (given) preprocessing += (preprocessing.empty() ? "" : ", ") + std::string(name);
    };
    flag(std::any_of(o.inputs.begin(), o.inputs.end(), [](const InputSpec& s) { return s.value.has_value(); }),
         "--input name->values");
    flag(!o.mean_values.empty(), "--mean_values");
    flag(!o.scale_values.empty(), "--scale_values");
    flag(o.reverse_input_channels, "--reverse_input_channels");
    flag(o.batch.has_value(), "--batch");
    flag(!o.layouts.empty(), "--layout");
    flag(o.static_shape, "--static_shape");
    needs(preprocessing, "InputPreprocessing");
    needs(o.outputs.empty() ? "" : "--output", "OutputCut");
    needs(o.make_stateful ? "--transform MakeStateful" : "", "MakeStateful");
}

}  // namespace

std::unique_ptr<Graph> load_and_transform(const ConversionOptions& options, const Pipeline& pipeline,
                                          const ConversionOptions& transform_options) {
    check_flags_have_their_transformations(options, pipeline.transforms);
    std::unique_ptr<Graph> graph = pipeline.load_and_extract(options);
    Progress::phase("transformations");
    pipeline.transforms.run_all(*graph, TransformContext{transform_options});
    // Whatever MO_DISABLED_TRANSFORMS turned off, every port needs a type: OpenVINO's reader
    // refuses an IR with an UNSPECIFIED precision, and so does mo-run. Read in the order the
    // writer walks next, each node and its outputs fetched a few nodes ahead (two cache misses a
    // node otherwise, 0.17 s of a million-node transformer's run).
    const std::vector<Node>& order = GraphAccess::order(*graph).nodes;
    constexpr size_t kNode = 16, kOutputs = 8;
    for (size_t k = 0; k < order.size(); ++k) {
        if (k + kNode < order.size()) __builtin_prefetch(&GraphAccess::data(order[k + kNode])->outputs);
        if (k + kOutputs < order.size()) __builtin_prefetch(GraphAccess::data(order[k + kOutputs])->outputs.data());
        const std::vector<OutputData>& outputs = GraphAccess::data(order[k])->outputs;
        for (size_t j = 0; j < outputs.size(); ++j)
            if (outputs[j].type == ElementType::dynamic)
                throw Error("output " + std::to_string(j) + " has no element type", order[k].describe(),
                            "shape inference did not type it: check that MO_DISABLED_TRANSFORMS leaves PartialInference on");
    }
    return graph;
}

}  // namespace mo
