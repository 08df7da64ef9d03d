#include "tools/convert.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/infer.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "emit/ir_writer.hpp"
#include "tools/load_and_transform.hpp"
#include "tools/pipeline.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

ConversionResult convert_into(const ConversionOptions& options, const Pipeline& pipeline, const fs::path& out_dir,
                              const std::string& model_name) {
    std::unique_ptr<Graph> graph = load_and_transform(options, pipeline, options);
    Progress::phase("write IR");

    EmitOptions emit;
    emit.xml_path = (out_dir / (model_name + ".xml")).string();
    emit.bin_path = (out_dir / (model_name + ".bin")).string();
    emit.model_name = model_name;
    emit.conversion_parameters = options.cli_parameters;
    EmitStats stats = write_ir(*graph, emit);
    MO_LOG(Debug, "framework ", graph->source_framework, ": ", stats.layers, " layers, ", stats.edges, " edges");
    Progress::phase("release");  // freeing the graph and unmapping the model take time too
    graph.reset();
    return ConversionResult{emit.xml_path, emit.bin_path, stats.layers, stats.bin_bytes};
}

}  // namespace

ConversionResult convert(const ConversionOptions& options) {
    if (options.input_model.empty()) throw Error("no input model given", "--input_model", "pass --input_model FILE");
    std::error_code ec;
    if (!fs::is_regular_file(options.input_model, ec))
        throw Error("input model not found", options.input_model, "check the path given to --input_model");
    set_max_folded_bytes(options.max_constant_bytes);
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
        ConversionResult result = convert_into(options, pipeline, out_dir, model_name);
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

}  // namespace mo
