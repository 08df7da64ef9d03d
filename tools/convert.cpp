#include "tools/convert.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/log.hpp"
#include "emit/ir_writer.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_loader.hpp"
#include "ops/ops.hpp"
#include "transforms/registry.hpp"
#include "transforms/transforms.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSupportedFrameworks = "onnx (.onnx, or ONNX text format .prototxt)";

std::string guess_framework(const ConversionOptions& options) {
    const std::string& path = options.input_model;
    if (!options.framework.empty()) {
        if (options.framework == "onnx") return "onnx";
        throw Error("unsupported framework '" + options.framework + "'", "--framework",
                    std::string("supported: ") + kSupportedFrameworks);
    }
    std::string ext = fs::path(path).extension().string();
    if (ext == ".onnx" || ext == ".prototxt" || looks_like_onnx(path)) return "onnx";
    throw Error("unsupported framework: cannot tell the framework of this file", path,
                std::string("supported: ") + kSupportedFrameworks + "; or pass --framework onnx");
}

void reject_unsupported(const ConversionOptions& options) {
    if (!options.transformations_config.empty())
        throw Error("--transformations_config is not supported yet", options.transformations_config,
                    "convert without it; configured transformations are planned");
    if (!options.extensions.empty())
        throw Error("--extensions is not supported yet", options.extensions.front(),
                    "convert without it; plugins are planned");
}

ConversionResult convert_into(const ConversionOptions& options, const fs::path& out_dir,
                              const std::string& model_name, const std::string& framework) {
    OpRegistry ops;  // declared first: the graph refers to it
    register_builtin_ops(ops);
    std::unique_ptr<Graph> graph = load_onnx(options.input_model, options, ops);
    OnnxExtractorRegistry extractors;
    register_onnx_extractors(extractors);
    extract_onnx(*graph, extractors);

    TransformRegistry transforms;
    register_builtin_transforms(transforms);
    transforms.apply_environment();
    transforms.run_all(*graph, TransformContext{options});

    EmitOptions emit;
    emit.xml_path = (out_dir / (model_name + ".xml")).string();
    emit.bin_path = (out_dir / (model_name + ".bin")).string();
    emit.model_name = model_name;
    emit.conversion_parameters = options.cli_parameters;
    EmitStats stats = write_ir(*graph, emit);
    MO_LOG(Debug, "framework ", framework, ": ", stats.layers, " layers, ", stats.edges, " edges");
    return ConversionResult{emit.xml_path, emit.bin_path, stats.layers, stats.bin_bytes};
}

}  // namespace

ConversionResult convert(const ConversionOptions& options) {
    reject_unsupported(options);
    if (options.input_model.empty()) throw Error("no input model given", "--input_model", "pass --input_model FILE");
    std::error_code ec;
    if (!fs::is_regular_file(options.input_model, ec))
        throw Error("input model not found", options.input_model, "check the path given to --input_model");
    const std::string framework = guess_framework(options);

    const std::string model_name =
        options.model_name.empty() ? fs::path(options.input_model).stem().string() : options.model_name;
    if (model_name.empty() || model_name.find('/') != std::string::npos)
        throw Error("invalid model name '" + model_name + "'", "--model_name", "use a plain file name without '/'");
    const fs::path out_dir = options.output_dir.empty() ? fs::path(".") : fs::path(options.output_dir);
    const bool created_dir = !fs::exists(out_dir, ec);
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir))
        throw Error("cannot create the output directory: " + ec.message(), out_dir.string(),
                    "check --output_dir and its permissions");
    try {
        return convert_into(options, out_dir, model_name, framework);
    } catch (...) {
        if (created_dir) fs::remove(out_dir, ec);  // only removes it when still empty
        throw;
    }
}

}  // namespace mo
