// The Caffe loader and extractors on small nets written here, with values worked by hand:
// Caffe's CEIL pooling that drops a last window starting in the padding, an in-place chain and
// its tensor names, Crop offsets, PriorBox clipping; and the files and errors: a .caffemodel
// alone or with the .prototxt beside it, weights missing, unknown layer types and fields.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/caffe/caffe.pb.h"
#include "loaders/caffe/caffe_loader.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "tools/convert.hpp"

namespace mo {
namespace {

// Converts `prototxt` (with `caffemodel` when given) and evaluates the IR on `inputs`.
std::vector<Tensor> run(const test::ScratchDir& dir, const std::string& prototxt, const std::vector<Tensor>& inputs,
                        const std::string& caffemodel = {}, std::unique_ptr<Graph>* ir_out = nullptr) {
    std::ofstream(dir.file("deploy.prototxt")) << prototxt;
    ConversionOptions o;
    o.input_proto = dir.file("deploy.prototxt");
    o.input_model = o.input_proto;
    if (!caffemodel.empty()) {
        std::ofstream(dir.file("model.caffemodel"), std::ios::binary) << caffemodel;
        o.input_model = dir.file("model.caffemodel");
    }
    o.framework = "caffe";
    o.output_dir = dir.file("out");
    o.compress_to_fp16 = false;
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    auto out = evaluate(*ir, inputs);
    if (ir_out) *ir_out = std::move(ir);
    return out;
}

std::vector<float> values(const Tensor& t) {
    std::vector<float> v;
    for (double x : t.to_f64()) v.push_back(static_cast<float>(x));
    return v;
}

Tensor iota(Shape shape, float from = 1) {
    std::vector<float> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = from + static_cast<float>(i);
    return Tensor::from_vector<float>(v, shape);
}

// 3 x 3 input 1..9, kernel 2, stride 2, pad 1: Caffe's CEIL gives ceil(3 / 2) + 1 = 3 windows,
// and drops the third, which would start at 4 >= 3 + 1 (in the padding): 2 x 2. MAX of windows
// rows/cols [-1, 1) and [1, 3): 1, 3 / 7, 9. AVE divides by the window clipped to [-1, 4): 4 each:
// 1/4, (2+3)/4 / (4+7)/4, (5+6+8+9)/4.
TEST(CaffeLoader, CeilPoolingDropsAWindowStartingInThePadding) {
    test::ScratchDir dir("caffe_pool");
    auto out = run(dir, R"(
input: "x" input_shape { dim: 1 dim: 1 dim: 3 dim: 3 }
layer { name: "max" type: "Pooling" bottom: "x" top: "max" pooling_param { pool: MAX kernel_size: 2 stride: 2 pad: 1 } }
layer { name: "ave" type: "Pooling" bottom: "x" top: "ave" pooling_param { pool: AVE kernel_size: 2 stride: 2 pad: 1 } }
)", {iota({1, 1, 3, 3})});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
    EXPECT_EQ(values(out[0]), (std::vector<float>{1, 3, 7, 9}));
    EXPECT_EQ(values(out[1]), (std::vector<float>{0.25f, 1.25f, 2.75f, 7.0f}));
}

// x = [-2, 0.5, 3]: Power (scale 2) -> [-4, 1, 6], ReLU (slope 0.5) in place -> [-2, 1, 6],
// Scale (scalar 0.5, bias 1) in place -> [0, 1.5, 4]; the last version is named y, the earlier ones
// "y/<layer>", and only the last is an output.
TEST(CaffeLoader, InPlaceChainKeepsTheBlobNameOnItsLastVersion) {
    test::ScratchDir dir("caffe_inplace");
    mo_caffe::NetParameter weights;
    auto* scale = weights.add_layer();
    scale->set_name("scale");
    for (float v : {0.5f, 1.0f}) {
        auto* b = scale->add_blobs();
        b->mutable_shape();  // a scalar: shape []
        b->add_data(v);
    }
    std::unique_ptr<Graph> ir;
    auto out = run(dir, R"(
input: "x" input_shape { dim: 3 }
layer { name: "double" type: "Power" bottom: "x" top: "y" power_param { scale: 2 } }
layer { name: "leaky" type: "ReLU" bottom: "y" top: "y" relu_param { negative_slope: 0.5 } }
layer { name: "scale" type: "Scale" bottom: "y" top: "y" scale_param { axis: 0 num_axes: 0 bias_term: true } }
)", {Tensor::from_vector<float>({-2, 0.5f, 3}, {3})}, weights.SerializeAsString(), &ir);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(values(out[0]), (std::vector<float>{0, 1.5f, 4}));
    EXPECT_TRUE(ir->results()[0].answers_to("y"));
}

// 4 x 5 input 0..19 cropped to the reference's 2 x 3 from offsets (1, 2): rows 1-2, cols 2-4.
TEST(CaffeLoader, CropStartsAtTheOffsets) {
    test::ScratchDir dir("caffe_crop");
    auto out = run(dir, R"(
input: "x" input_shape { dim: 1 dim: 1 dim: 4 dim: 5 }
input: "ref" input_shape { dim: 1 dim: 1 dim: 2 dim: 3 }
layer { name: "crop" type: "Crop" bottom: "x" bottom: "ref" top: "crop" crop_param { axis: 2 offset: 1 offset: 2 } }
)", {iota({1, 1, 4, 5}, 0), iota({1, 1, 2, 3})});
    EXPECT_EQ(values(out[0]), (std::vector<float>{7, 8, 9, 12, 13, 14}));
}

// A 1 x 2 feature map on an 8 x 8 image: step 4, centres (2, 2) and (6, 2); min_size 6 (half 3).
// Cell 0: [-1, -1, 5, 5] / 8 clipped to [0, 0, 0.625, 0.625]; cell 1: [3, -1, 9, 5] / 8 clipped to
// [0.375, 0, 1, 0.625]. Variances 0.1 (none given).
TEST(CaffeLoader, PriorBoxClipsToTheImage) {
    test::ScratchDir dir("caffe_priorbox");
    auto out = run(dir, R"(
input: "feature" input_shape { dim: 1 dim: 1 dim: 1 dim: 2 }
input: "image" input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "priors" type: "PriorBox" bottom: "feature" bottom: "image" top: "priors"
        prior_box_param { min_size: 6 clip: true step: 4 } }
)", {iota({1, 1, 1, 2}), iota({1, 3, 8, 8})});
    EXPECT_EQ(out[0].shape(), (Shape{1, 2, 8}));
    EXPECT_EQ(values(out[0]), (std::vector<float>{0, 0, 0.625f, 0.625f, 0.375f, 0, 1, 0.625f,
                                                  0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f}));
}

// A .caffemodel that holds its layers converts alone; with a .prototxt beside it, the prototxt
// gives the topology (here: a ReLU the .caffemodel does not have).
TEST(CaffeLoader, CaffemodelAloneOrWithThePrototxtBesideIt) {
    test::ScratchDir dir("caffe_alone");
    mo_caffe::NetParameter net;
    net.add_input("x");
    auto* shape = net.add_input_shape();
    shape->add_dim(2);
    auto* l = net.add_layer();
    l->set_name("abs");
    l->set_type("AbsVal");
    l->add_bottom("x");
    l->add_top("y");
    std::ofstream(dir.file("m.caffemodel"), std::ios::binary) << net.SerializeAsString();
    ConversionOptions o;
    o.input_model = dir.file("m.caffemodel");
    o.output_dir = dir.file("out");
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    EXPECT_EQ(values(evaluate(*ir, {Tensor::from_vector<float>({-1, 2}, {2})})[0]), (std::vector<float>{1, 2}));
    std::ofstream(dir.file("m.prototxt")) << R"(input: "x" input_shape { dim: 2 }
layer { name: "abs" type: "AbsVal" bottom: "x" top: "y" }
layer { name: "relu" type: "ReLU" bottom: "y" top: "z" relu_param { negative_slope: 0.5 } })";
    ir = read_ir(convert(o).xml_path, test::builtin_ops());
    EXPECT_EQ(values(evaluate(*ir, {Tensor::from_vector<float>({-1, 2}, {2})})[0]), (std::vector<float>{1, 2}));
    EXPECT_TRUE(ir->results()[0].answers_to("z"));
}

// A learned blob (here 128 KiB) is a view of the mapped .caffemodel, not a copy; a V1 layer's
// legacy 4-D blob keeps its (num, channels, height, width) shape.
TEST(CaffeLoader, BlobsAreViewsOfTheMappedFile) {
    test::ScratchDir dir("caffe_views");
    for (bool v1 : {false, true}) {
        mo_caffe::NetParameter net;
        net.add_input("x");
        net.add_input_shape()->add_dim(256);
        mo_caffe::BlobProto* blob = nullptr;
        if (v1) {
            auto* l = net.add_layers();
            l->set_name("fc");
            l->set_type(mo_caffe::V1LayerParameter::INNER_PRODUCT);
            l->add_bottom("x");
            l->add_top("y");
            blob = l->add_blobs();
            blob->set_num(1);
            blob->set_channels(1);
            blob->set_height(128);
            blob->set_width(256);
        } else {
            auto* l = net.add_layer();
            l->set_name("fc");
            l->set_type("InnerProduct");
            l->add_bottom("x");
            l->add_top("y");
            blob = l->add_blobs();
            blob->mutable_shape()->add_dim(128);
            blob->mutable_shape()->add_dim(256);
        }
        for (int i = 0; i < 128 * 256; ++i) blob->add_data(static_cast<float>(i));
        std::ofstream(dir.file("m.caffemodel"), std::ios::binary) << net.SerializeAsString();
        ConversionOptions o;
        o.input_model = dir.file("m.caffemodel");
        auto g = load_caffe(o.input_model, o, test::builtin_ops());
        Node fc;
        for (const Node& n : g->nodes())
            if (n.is("FrameworkNode")) fc = n;
        ASSERT_TRUE(fc);
        auto w = fc.framework().attributes->get("blobs.0");
        ASSERT_TRUE(w.has_value());
        const Tensor& t = std::get<Tensor>(*w);
        EXPECT_TRUE(t.buffer()->is_file_view()) << (v1 ? "V1" : "current form");
        EXPECT_EQ(t.shape(), v1 ? (Shape{1, 1, 128, 256}) : (Shape{128, 256}));
        EXPECT_EQ(t.aligned().data<float>()[300], 300.0f);
    }
}

std::string conversion_error(const test::ScratchDir& dir, const std::string& prototxt) {
    try {
        run(dir, prototxt, {});
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(CaffeLoader, RefusesWhatItCannotConvertNamingTheLayer) {
    test::ScratchDir dir("caffe_errors");
    const std::string input = "input: \"x\" input_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n";
    // A layer type no extractor knows: named with its layer.
    std::string e = conversion_error(dir, input + R"(layer { name: "odd" type: "MyLayer" bottom: "x" top: "y" })");
    EXPECT_NE(e.find("MyLayer"), std::string::npos) << e;
    EXPECT_NE(e.find("odd"), std::string::npos) << e;
    // A field mo's subset does not know, in a layer it converts: refused, not ignored.
    e = conversion_error(dir, input + R"(layer { name: "r" type: "ReLU" bottom: "x" top: "y" relu_param { slope_fork: 2 } })");
    EXPECT_NE(e.find("relu_param.slope_fork"), std::string::npos) << e;
    // Weights the prototxt alone cannot give.
    e = conversion_error(dir, input + R"(layer { name: "c" type: "Convolution" bottom: "x" top: "y"
        convolution_param { num_output: 2 kernel_size: 3 } })");
    EXPECT_NE(e.find("weights (blob 0) is missing"), std::string::npos) << e;
    // A bottom nothing writes.
    e = conversion_error(dir, input + R"(layer { name: "r" type: "ReLU" bottom: "nothing" top: "y" })");
    EXPECT_NE(e.find("bottom 'nothing'"), std::string::npos) << e;
    // A training net's data layer.
    e = conversion_error(dir, R"(layer { name: "data" type: "Data" top: "data" top: "label" }
layer { name: "r" type: "ReLU" bottom: "data" top: "y" })");
    EXPECT_NE(e.find("deploy.prototxt"), std::string::npos) << e;
}

}  // namespace
}  // namespace mo
