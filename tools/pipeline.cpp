#include "tools/pipeline.hpp"

#include "extractors/caffe/caffe_extractors.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "extractors/tf/tf_extractors.hpp"
#include "extractors/tflite/tflite_extractors.hpp"
#include "loaders/caffe/caffe_loader.hpp"
#include "loaders/ir/ir_loader.hpp"
#include "loaders/onnx/onnx_loader.hpp"
#include "loaders/tf/tf_loader.hpp"
#include "loaders/tflite/tflite_loader.hpp"
#include "core/plugin_code.hpp"
#include "core/progress.hpp"
#include "ops/ops.hpp"
#include "transforms/back/unsupported_ops.hpp"
#include "transforms/config/transformations_config.hpp"
#include "transforms/transforms.hpp"

namespace mo {

void register_builtins(Registries& r) {
    register_builtin_ops(r.ops);
    register_onnx_loader(r.loaders);
    register_tflite_loader(r.loaders);
    register_tf_loader(r.loaders);
    register_caffe_loader(r.loaders);
    register_ir_loader(r.loaders);
    register_onnx_extractors(r.extractors);
    register_tflite_extractors(r.extractors);
    register_tf_extractors(r.extractors);
    register_caffe_extractors(r.extractors);
    register_builtin_transforms(r.transforms);
}

Pipeline::Pipeline(const ConversionOptions& options) {
    Registries r = registries();
    register_builtins(r);
    plugins = load_plugins(find_plugins(options.extensions), r);
    transforms.check_op_types(ops);
    // After the plugins: their configured transformations may be the ones the config names.
    if (!options.transformations_config.empty()) apply_transformations_config(transforms, options.transformations_config);
    transforms.apply_environment();
}

std::unique_ptr<Graph> Pipeline::load_and_extract(const ConversionOptions& options) const {
    const Loader& loader = loaders.choose(options.input_model, options.framework);
    Progress::phase("load");
    std::unique_ptr<Graph> graph = run_plugin_code(
        loader.origin, [&] { return PluginCodeSite{"the " + loader.framework + " loader", options.input_model}; },
        [&] { return loader.load(options.input_model, options, ops); });
    if (graph->source_framework.empty()) graph->source_framework = loader.framework;
    graph->max_constant_bytes = options.max_constant_bytes;  // a plugin's loader may not have set it
    Progress::phase("extract");
    extract(*graph, extractors);
    // Only an --output cut or a configured replacement can remove an op no extractor handled;
    // without either, say so now rather than after the front and middle phases.
    if (options.transformations_config.empty() && options.outputs.empty()) report_unsupported_ops(*graph);
    return graph;
}

}  // namespace mo
