#include "tools/validate_conversion.hpp"

#include "loaders/ir/ir_reader.hpp"
#include "tools/pipeline.hpp"
#include "transforms/front/input_preprocessing.hpp"
#include "transforms/front/output_cut.hpp"
#include "transforms/middle/partial_inference.hpp"
#include "validate/runner.hpp"

namespace mo {

Tolerance validation_tolerance(const ConversionOptions& options) {
    return options.compress_to_fp16 ? Tolerance{5e-2, 5e-2} : Tolerance{5e-4, 1e-4};
}

ConversionValidation validate_conversion(const ConversionOptions& options, const ConversionResult& result,
                                         const ValidationRequest& request) {
    Pipeline pipeline(options);  // plugins' ops evaluate their own nodes
    std::unique_ptr<Graph> ir = read_ir(result.xml_path, pipeline.ops);

    RunOptions run;
    run.input_files = request.inputs;
    run.reference_files = request.outputs;
    run.tolerance = validation_tolerance(options);
    RunResult ran = run_model(*ir, run);

    ConversionValidation v;
    if (ran.report) {
        v.ok = ran.report->ok();
        v.report = "IR read back from " + result.xml_path + " compared with the reference outputs given:\n" +
                   ran.report->text();
        return v;
    }
    // No reference outputs: the source graph as extracted (cut at --output like the IR) is
    // the reference. Inference runs so that every node knows its output types.
    std::unique_ptr<Graph> source = pipeline.load_and_extract(options);
    TransformContext ctx{options};
    InputPreprocessing().run(*source, ctx);  // the IR takes the raw input too
    OutputCut().run(*source, ctx);
    PartialInference().run(*source, ctx);
    ValidationReport report = validate(*source, *ir, ran.inputs, run.tolerance);
    v.ok = report.ok();
    v.report = "IR read back from " + result.xml_path +
               " compared with the source graph as extracted (this checks the transformations and the IR, not "
               "the extractors; pass --validate_outputs with the source framework's outputs for that):\n" +
               report.text();
    return v;
}

}  // namespace mo
