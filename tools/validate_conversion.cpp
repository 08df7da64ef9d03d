#include "tools/validate_conversion.hpp"

#include "loaders/ir/ir_reader.hpp"
#include "tools/load_and_transform.hpp"
#include "tools/pipeline.hpp"
#include "transforms/front/input_preprocessing.hpp"
#include "transforms/front/output_cut.hpp"
#include "transforms/middle/partial_inference.hpp"
#include "validate/runner.hpp"

namespace mo {

Tolerance validation_tolerance(const ConversionOptions& options) {
    return options.compress_to_fp16 ? Tolerance{5e-2, 5e-2} : Tolerance{5e-4, 1e-4};
}

namespace {

// Evaluates `written` (the IR or ONNX read back) and compares it with the reference outputs
// given, or else with the source graph as extracted.
ConversionValidation validate_written(const ConversionOptions& options, const Pipeline& pipeline, const Graph& written,
                                      const std::string& what, const ValidationRequest& request, const Tolerance& tolerance) {
    RunOptions run;
    run.input_files = request.inputs;
    run.reference_files = request.outputs;
    run.tolerance = tolerance;
    RunResult ran = run_model(written, run);

    ConversionValidation v;
    if (ran.report) {
        v.ok = ran.report->ok();
        v.report = what + " compared with the reference outputs given:\n" + ran.report->text();
        return v;
    }
    // No reference outputs: the source graph as extracted (cut at --output like the IR) is
    // the reference. Inference runs so that every node knows its output types.
    std::unique_ptr<Graph> source = pipeline.load_and_extract(options);
    TransformContext ctx{options};
    InputPreprocessing().run(*source, ctx);  // the IR takes the raw input too
    OutputCut().run(*source, ctx);
    PartialInference().run(*source, ctx);
    ValidationReport report = validate(*source, written, ran.inputs, tolerance);
    v.ok = report.ok();
    v.report = what +
               " compared with the source graph as extracted (this checks the transformations and the written model, not "
               "the extractors; pass --validate_outputs with the source framework's outputs for that):\n" +
               report.text();
    return v;
}

}  // namespace

ConversionValidation validate_conversion(const ConversionOptions& options, const ConversionResult& result,
                                         const ValidationRequest& request) {
    Pipeline pipeline(options);  // plugins' ops evaluate their own nodes
    ConversionValidation v{true, {}};
    auto add = [&](const ConversionValidation& one) {
        v.ok = v.ok && one.ok;
        v.report += (v.report.empty() || v.report.back() == '\n' ? "" : "\n") + one.report;
    };
    if (!result.xml_path.empty()) {
        std::unique_ptr<Graph> ir = read_ir(result.xml_path, pipeline.ops);
        add(validate_written(options, pipeline, *ir, "IR read back from " + result.xml_path, request,
                             validation_tolerance(options)));
    }
    if (!result.onnx_path.empty()) {
        // The ONNX file read back by mo's ONNX loader and transformed as any ONNX model is; it
        // keeps f32 weights, so it meets the uncompressed tolerance.
        ConversionOptions read_back;
        read_back.input_model = result.onnx_path;
        read_back.framework = "onnx";
        read_back.compress_to_fp16 = false;
        read_back.extensions = options.extensions;
        std::unique_ptr<Graph> onnx = load_and_transform(read_back, pipeline, read_back);
        ConversionOptions uncompressed = options;
        uncompressed.compress_to_fp16 = false;
        add(validate_written(options, pipeline, *onnx, "ONNX read back from " + result.onnx_path, request,
                             validation_tolerance(uncompressed)));
    }
    return v;
}

}  // namespace mo
