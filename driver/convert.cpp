#include "driver/convert.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/infer.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "emit/attr_format.hpp"
#include "emit/ir_writer.hpp"
#include "emit/onnx/onnx_writer.hpp"
#include "driver/load_and_transform.hpp"
#include "driver/pipeline.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

bool wants(const ConversionOptions& options, const char* format) {
    return std::find(options.output_formats.begin(), options.output_formats.end(), format) != options.output_formats.end();
}

// A graph left to the process's exit (GraphAfterConversion::LeaveToExit): reachable, never freed.
Graph* graph_left_to_exit = nullptr;

ConversionResult convert_into(const ConversionOptions& options, const Pipeline& pipeline, const fs::path& out_dir,
                              const std::string& model_name, GraphAfterConversion after) {
    const bool ir = wants(options, "ir"), onnx = wants(options, "onnx");
    // ONNX keeps f32 weights: the graph is transformed without f16 compression, which runs
    // afterwards for the IR (as the held model does it when it saves).
    ConversionOptions transform_options = options;
    if (onnx) transform_options.compress_to_fp16 = false;
    std::unique_ptr<Graph> graph = load_and_transform(options, pipeline, transform_options);
    ConversionResult result;
    std::string onnx_data;
    if (onnx) {
        Progress::phase("write ONNX");
        OnnxEmitOptions emit;
        emit.path = (out_dir / (model_name + ".onnx")).string();
        emit.model_name = model_name;
        emit.metadata = options.cli_parameters;
        OnnxEmitStats stats = write_onnx(*graph, emit);
        result.onnx_path = emit.path;
        result.onnx_nodes = stats.nodes;
        result.onnx_opset = stats.opset;
        onnx_data = stats.external_data;
    }
    if (ir) {
        // Nothing half-written: an IR that fails takes the ONNX files written before it along.
        try {
            if (onnx && options.compress_to_fp16)
                pipeline.transforms.run_all(*graph, TransformContext{options}, "CompressFloatConstantsToF16");
            Progress::phase("write IR");
            EmitOptions emit;
            emit.xml_path = (out_dir / (model_name + ".xml")).string();
            emit.bin_path = (out_dir / (model_name + ".bin")).string();
            emit.model_name = model_name;
            emit.conversion_parameters = options.cli_parameters;
            EmitStats stats = write_ir(*graph, emit);
            MO_LOG(Debug, "framework ", graph->source_framework, ": ", stats.layers, " layers, ", stats.edges, " edges");
            result.xml_path = emit.xml_path;
            result.bin_path = emit.bin_path;
            result.layers = stats.layers;
            result.bin_bytes = stats.bin_bytes;
        } catch (...) {
            if (!result.onnx_path.empty()) {
                std::error_code ignored;
                fs::remove(result.onnx_path, ignored);
                if (!onnx_data.empty()) fs::remove(onnx_data, ignored);
            }
            throw;
        }
    }
    Progress::phase("release");  // freeing the graph and unmapping the model take time too
    if (after == GraphAfterConversion::LeaveToExit) graph_left_to_exit = graph.release();
    graph.reset();
    return result;
}

}  // namespace

ConversionResult convert(const ConversionOptions& options, GraphAfterConversion after) {
    if (options.input_model.empty()) throw Error("no input model given", "--input_model", "pass --input_model FILE");
    std::error_code ec;
    if (!fs::is_regular_file(options.input_model, ec))
        throw Error("input model not found", options.input_model, "check the path given to --input_model");
    Progress::start();
    Progress::phase("start");
    Pipeline pipeline(options);  // declared before the graph, which refers to its op registry
    pipeline.loaders.choose(options.input_model, options.framework);  // fails early on an unknown format

    const std::string model_name =
        options.model_name.empty() ? fs::path(options.input_model).stem().string() : options.model_name;
    if (model_name.empty() || model_name.find('/') != std::string::npos)
        throw Error("invalid model name '" + model_name + "'", "--model_name", "use a plain file name without '/'");
    const fs::path out_dir = options.output_dir.empty() ? fs::path(".") : fs::path(options.output_dir);
    // The levels of out_dir that do not exist yet, deepest first: a failure removes the ones that
    // are still empty, so it leaves no directory that it made.
    std::vector<fs::path> created_dirs;
    for (fs::path p = out_dir.has_filename() ? out_dir : out_dir.parent_path(); !p.empty() && !fs::exists(p, ec);
         p = p.parent_path())
        created_dirs.push_back(p);
    auto remove_created_dirs = [&] {
        std::error_code ignored;
        for (const fs::path& dir : created_dirs) fs::remove(dir, ignored);  // only removes it when still empty
    };
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir)) {
        const std::string reason = ec.message();
        remove_created_dirs();
        throw Error("cannot create the output directory: " + reason, out_dir.string(),
                    "check --output_dir and its permissions");
    }
    try {
        ConversionResult result = convert_into(options, pipeline, out_dir, model_name, after);
        Progress::finish();
        return result;
    } catch (...) {
        Progress::finish();
        remove_created_dirs();
        throw;
    }
}

std::string list_transformations(const ConversionOptions& options) {
    Pipeline pipeline(options);
    return pipeline.transforms.describe_order();
}

namespace {

// "`axis` int = 1", "`pads_begin` ints, required".
std::string describe_attr(const AttrSpec& a) {
    std::string text = "`" + a.name + "` " + std::string(kind_name(a.kind));
    if (a.required()) return text + ", required";
    const std::string value = format_attr(a.default_value);
    return text + " = " + (value.empty() ? "\"\"" : value);
}

std::string describe_count(size_t min, size_t max) {
    if (max == SIZE_MAX) return std::to_string(min) + "+";
    return min == max ? std::to_string(min) : std::to_string(min) + "-" + std::to_string(max);
}

}  // namespace

std::string list_ops(const ConversionOptions& options) {
    Pipeline pipeline(options);
    std::string table =
        "| op | IR type | opset | inputs | outputs | attributes (IR name, kind, default) |\n|---|---|---|---|---|---|\n";
    for (const std::string& type : pipeline.ops.types()) {
        const OpSchema& op = pipeline.ops.get(type);
        const std::string& origin = pipeline.ops.origin(type);
        std::string attrs;
        for (const AttrSpec& a : op.attrs) attrs += (attrs.empty() ? "" : "; ") + describe_attr(a);
        table += "| `" + type + "`" + (origin == "built-in" ? "" : " (plugin " + origin + ")") + " | " +
                 (op.is_internal() ? "—" : op.ir_type) + " | " + (op.is_internal() ? "internal" : op.ir_version) + " | " +
                 describe_count(op.min_inputs, op.max_inputs) + " | " +
                 (op.num_outputs == SIZE_MAX ? "per node" : std::to_string(op.num_outputs)) + " | " +
                 (attrs.empty() ? "—" : attrs) + " |\n";
    }
    return table;
}

}  // namespace mo
