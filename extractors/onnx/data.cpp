// Constants and pass-through ops: Constant, ConstantOfShape, Cast, Range, Identity, Dropout.
#include "extractors/extract_context.hpp"
#include "extractors/onnx/onnx_extractors.hpp"
#include "loaders/onnx/onnx_tensor.hpp"

namespace mo {

namespace {

// The loader leaves ONNX Constant nodes as FrameworkNodes; they become Constants here.
void constant(ExtractContext& c) {
    Tensor value;
    if (c.has("value")) {
        value = c.tensor("value");
    } else if (c.has("value_float")) {
        value = Tensor::scalar<float>(static_cast<float>(c.f("value_float", 0)));
    } else if (c.has("value_int")) {
        value = Tensor::scalar<int64_t>(c.i("value_int"));
    } else if (c.has("value_floats")) {
        std::vector<float> v;
        for (double d : c.floats("value_floats")) v.push_back(static_cast<float>(d));
        value = Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())});
    } else if (c.has("value_ints")) {
        std::vector<int64_t> v = c.ints("value_ints");
        value = Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())});
    } else if (c.has("sparse_value") || c.has("value_string") || c.has("value_strings")) {
        c.unsupported("a sparse or string Constant");
    } else {
        c.fail("Constant has no value attribute", "fix the model");
    }
    c.set_output(0, c.constant("", std::move(value)));
}

// ConstantOfShape = Broadcast(value scalar, shape); value defaults to float 0.
void constant_of_shape(ExtractContext& c) {
    Tensor value = c.has("value") ? c.tensor("value") : Tensor::scalar<float>(0.f);
    if (value.size() != 1) c.fail("value must hold exactly one element", "fix the model");
    OutPort scalar = c.constant("value", value.reshaped({}));
    c.set_output(0, c.op("Broadcast", "", {scalar, c.input(0)}, {{"mode", std::string("numpy")}}));
}

void cast(ExtractContext& c) {
    ElementType to = onnx_element_type(static_cast<int32_t>(c.i("to")), c.where());
    if (to == ElementType::dynamic) c.fail("Cast has no target type", "fix the model");
    // A Cast to the type the input already has (PyTorch puts one between each QuantizeLinear and
    // DequantizeLinear) is an identity.
    if (c.input(0).type() == to) {
        c.set_output(0, c.input(0));
        return;
    }
    c.become("Convert", {{"destination_type", to}});
}

// Range(start, limit, delta); ONNX Runtime's contrib Range makes delta optional (default 1).
void range(ExtractContext& c) {
    // Range-4 needs its output type: the inputs' type when known.
    ElementType t = ElementType::dynamic;
    for (size_t k = 0; k < 3 && t == ElementType::dynamic; ++k)
        if (c.has_input(k)) t = c.input(k).type();
    if (t == ElementType::dynamic) t = ElementType::i64;
    OutPort delta = c.has_input(2) ? c.input(2) : c.scalar_like("delta", 1.0, c.input(0));
    c.set_output(0, c.op("Range", "", {c.input(0), c.input(1), delta}, {{"output_type", t}}));
}

void identity(ExtractContext& c) { c.set_output(0, c.input(0)); }

// Inference-mode Dropout passes its input through; its mask keeps everything. So does a Dropout
// in training mode whose ratio is a constant 0 (it drops nothing).
void dropout(ExtractContext& c) {
    if (c.has_input(2)) {  // training_mode (opset 12)
        const Tensor* training = c.input_value(2);
        const Tensor* ratio = c.input_value(1);
        const bool drops_nothing = ratio && ratio->single_f64("ratio") == 0.0;
        if ((!training || training->single_i64("training_mode") != 0) && !drops_nothing)
            c.unsupported("Dropout in training mode (unless its ratio is a constant 0)");
    }
    OutPort x = c.input(0);
    if (c.output_used(1)) {
        OutPort shape = c.op("ShapeOf", "mask/shape", {x}, {{"output_type", ElementType::i64}});
        c.set_output(1, c.op("Broadcast", "mask", {c.constant("mask/true", Tensor::scalar<bool>(true)), shape},
                             {{"mode", std::string("numpy")}}));
    }
    c.set_output(0, x);
}

// Size = the product of the shape, a scalar.
void size(ExtractContext& c) {
    OutPort shape = c.op("ShapeOf", "shape", {c.input(0)}, {{"output_type", ElementType::i64}});
    c.set_output(0, c.op("ReduceProd", "", {shape, c.i64s("axes", {0})}, {{"keep_dims", false}}));
}

}  // namespace

void register_onnx_data(ExtractorRegistry& r) {
    r.add({"onnx", "", "Constant", since(1), constant});
    r.add({"onnx", "", "ConstantOfShape", since(9), constant_of_shape});
    r.add({"onnx", "", "Cast", since(1), cast});
    r.add({"onnx", "", "Range", since(11), range});
    r.add({"onnx", "com.microsoft", "Range", since(1), range});
    r.add({"onnx", "", "Identity", since(1), identity});
    r.add({"onnx", "", "Dropout", since(1), dropout});
    r.add({"onnx", "", "Size", since(1), size});
}

}  // namespace mo
