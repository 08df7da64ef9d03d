#include "tools/held_model.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "core/graph_clone.hpp"
#include "core/infer.hpp"
#include "core/progress.hpp"
#include "emit/ir_writer.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "tools/load_and_transform.hpp"
#include "validate/random_inputs.hpp"
#include "validate/validate.hpp"

namespace mo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCompressId = "CompressFloatConstantsToF16";

ModelPort port_of(const OutPort& port, const std::string& node_name) {
    ModelPort p;
    p.names = port.names();
    p.name = p.names.empty() ? node_name : p.names.front();
    p.type = port.type();
    p.shape = port.shape();
    return p;
}

// The directories of `dir` that do not exist yet, deepest first, made now; remove() takes back
// those still empty, so a failure leaves no directory that it made.
class MadeDirectories {
public:
    explicit MadeDirectories(const fs::path& dir) {
        std::error_code ec;
        for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) made_.push_back(p);
        fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir)) {
            const std::string reason = ec ? ec.message() : "not a directory";
            remove();
            throw Error("cannot create the output directory: " + reason, dir.string(), "check the path and its permissions");
        }
    }
    void remove() {
        std::error_code ignored;
        for (const fs::path& p : made_) fs::remove(p, ignored);  // only removes it when still empty
    }

private:
    std::vector<fs::path> made_;
};

// The IR's conversion parameters for a save with `compress`: the command line's, with
// compress_to_fp16 as `mo` would list it had it been given so (absent meaning True).
std::vector<std::pair<std::string, std::string>> parameters_for(const ConversionOptions& o, bool compress) {
    auto params = o.cli_parameters;
    if (compress == o.compress_to_fp16) return params;
    auto it = std::find_if(params.begin(), params.end(), [](const auto& p) { return p.first == "compress_to_fp16"; });
    if (it != params.end()) params.erase(it);
    if (!compress) {
        // `mo` lists its flags sorted by name.
        auto at = std::find_if(params.begin(), params.end(), [](const auto& p) { return p.first > "compress_to_fp16"; });
        params.insert(at, {"compress_to_fp16", "False"});
    }
    return params;
}

}  // namespace

HeldModel::~HeldModel() = default;

std::unique_ptr<HeldModel> HeldModel::convert(const ConversionOptions& options) {
    if (options.input_model.empty()) throw Error("no input model given", "--input_model", "pass --input_model FILE");
    std::error_code ec;
    if (!fs::is_regular_file(options.input_model, ec))
        throw Error("input model not found", options.input_model, "check the path given to --input_model");
    std::unique_ptr<HeldModel> m(new HeldModel());
    m->options_ = options;
    m->pipeline_ = std::make_unique<Pipeline>(options);
    m->pipeline_->loaders.choose(options.input_model, options.framework);  // fails early on an unknown format
    ConversionOptions uncompressed = options;
    uncompressed.compress_to_fp16 = false;
    Progress::start();
    try {
        m->graph_ = load_and_transform(options, *m->pipeline_, uncompressed);
    } catch (...) {
        Progress::finish();
        throw;
    }
    Progress::finish();
    return m;
}

std::unique_ptr<HeldModel> HeldModel::read_ir(const std::string& xml_path, const std::vector<std::string>& extensions) {
    std::unique_ptr<HeldModel> m(new HeldModel());
    m->options_.extensions = extensions;
    m->options_.compress_to_fp16 = false;  // what was read is what is there
    m->pipeline_ = std::make_unique<Pipeline>(m->options_);
    m->graph_ = mo::read_ir(xml_path, m->pipeline_->ops);
    return m;
}

std::vector<ModelPort> HeldModel::inputs() const {
    std::vector<ModelPort> ports;
    for (const Node& p : graph_->parameters()) ports.push_back(port_of(p.out(0), p.name()));
    return ports;
}

std::vector<ModelPort> HeldModel::outputs() const {
    std::vector<ModelPort> ports;
    for (size_t i = 0; i < graph_->results().size(); ++i) {
        const Node& r = graph_->results()[i];
        ModelPort p = port_of(r.in(0).src(), output_name(r, i));
        if (p.names.empty()) p.name = output_name(r, i);
        ports.push_back(std::move(p));
    }
    return ports;
}

ConversionResult HeldModel::save(const std::string& xml_path, bool compress_to_fp16) const {
    const fs::path xml(xml_path);
    if (xml.extension() != ".xml" || xml.stem().empty())
        throw Error("the IR path must end in .xml", xml_path, "save to a path like out/model.xml");
    std::unique_ptr<Graph> compressed;
    if (compress_to_fp16) {
        compressed = clone_graph(*graph_);
        ConversionOptions o = options_;
        o.compress_to_fp16 = true;
        pipeline_->transforms.run_all(*compressed, TransformContext{o}, kCompressId);
    }
    EmitOptions emit;
    emit.xml_path = xml.string();
    emit.bin_path = fs::path(xml).replace_extension(".bin").string();
    emit.model_name = xml.stem().string();
    emit.conversion_parameters = parameters_for(options_, compress_to_fp16);
    MadeDirectories dirs(xml.has_parent_path() ? xml.parent_path() : fs::path("."));
    try {
        EmitStats stats = write_ir(compressed ? *compressed : *graph_, emit);
        return ConversionResult{emit.xml_path, emit.bin_path, stats.layers, stats.bin_bytes};
    } catch (...) {
        dirs.remove();
        throw;
    }
}

std::vector<Tensor> HeldModel::run(const std::vector<Tensor>& inputs) {
    std::lock_guard lock(run_mutex_);
    return evaluate(*graph_, inputs, state_);
}

void HeldModel::reset_state() {
    std::lock_guard lock(run_mutex_);
    state_.clear();
}

ModelValidation HeldModel::validate(const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                                    const Tolerance& tolerance) const {
    ValidationReport report = mo::validate(*graph_, inputs, expected, tolerance);
    return ModelValidation{report.ok(), report.outputs, report.text()};
}

std::vector<Tensor> HeldModel::random_inputs(uint64_t seed) const { return mo::random_inputs(*graph_, seed); }

}  // namespace mo
