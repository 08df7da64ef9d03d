// The conversion parameters given on the command line, as every stage sees them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "element_type.hpp"
#include "shape.hpp"

namespace mo {

// One --input entry: a model input name with an optional shape override ("x[1,3,?,?]") and an
// optional value that freezes it ("x->[1 2 3]": the input becomes that constant).
struct InputSpec {
    std::string name;
    std::optional<PartialShape> shape;
    std::optional<std::vector<double>> value;
};

// One --mean_values / --scale_values entry: per-channel values for the input named (or, without a
// name, for the input at the entry's position).
struct InputChannelValues {
    std::string name;
    std::vector<double> values;
};

// One --layout / --source_layout / --target_layout entry: the input named (empty: every input)
// is given to the IR in `target` layout ("nchw") while the model reads it in `source` ("nhwc";
// empty: the source framework's layout).
struct InputLayout {
    std::string name;
    std::string source, target;
};

struct ConversionOptions {
    std::string input_model;
    // --input_proto: a Caffe model's deploy.prototxt when input_model is its .caffemodel.
    std::string input_proto;
    std::string output_dir = ".";
    std::string model_name;   // default: the model file's stem
    std::string framework;    // "onnx"; empty: guessed from the file
    // --output_format: "ir" and/or "onnx" (docs/onnx-output.md), in the order given.
    std::vector<std::string> output_formats{"ir"};
    std::vector<InputSpec> inputs;           // --input (and --input_shape merged in, by position)
    std::vector<std::string> outputs;        // --output: cut the graph at these tensors
    bool compress_to_fp16 = true;
    bool disable_nhwc_to_nchw = false;  // NHWC sources: skip the layout change (LayoutChange)
    // Preprocessing embedded in the IR (transforms/front/input_preprocessing.hpp).
    std::vector<InputChannelValues> mean_values, scale_values;
    bool reverse_input_channels = false;
    std::optional<int64_t> batch;
    std::vector<InputLayout> layouts;
    bool static_shape = false;  // every input must have a static shape: shape sub-graphs fold
    int64_t max_constant_bytes = int64_t{2} << 30;  // --max_constant_size (Graph::max_constant_bytes)
    std::string transformations_config;
    // --transform MakeStateful[param_res_names={'in':'out',...}]: paired inputs and outputs
    // become variables (transforms/back/make_stateful.hpp); no pairs: found by name.
    bool make_stateful = false;
    std::vector<std::pair<std::string, std::string>> stateful_pairs;
    std::vector<std::string> extensions;
    // Where an ONNX model's external data files are (empty: the model file's directory). Set by
    // the Python module for models given as bytes, which it stages in a temporary file.
    std::string external_data_dir;
    // The command line as given, for meta data.
    std::vector<std::pair<std::string, std::string>> cli_parameters;
};

}  // namespace mo
