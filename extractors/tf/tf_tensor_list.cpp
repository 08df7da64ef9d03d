// TensorList ops (what tf.map_fn, TensorArrays and tf.stack in a loop become) on a dense
// tensor: a list of N elements of shape S is the tensor [N, S...] (TensorFlow keeps a vector of
// tensors), so a list carried through a While is a Loop back edge of fixed shape:
//   TensorListReserve(S, N)             zeros [N, S...] of element_dtype (S known at conversion)
//   TensorListFromTensor(t, S)          t
//   TensorListGetItem(l, i, S)          Gather(l, i, axis 0)
//   TensorListSetItem(l, i, v)          ScatterUpdate(l, [i], [v], axis 0)
//   TensorListStack(l, S), TensorListGather(l, idx, S), TensorListLength(l)
// A list whose element shape is unknown, or that grows (PushBack, resize_if_index_out_of_bounds),
// is refused.
#include <algorithm>

#include "extractors/tf/tf_extractors.hpp"
#include "loaders/tf/tf_tensor.hpp"

namespace mo {

namespace {

void reserve(ExtractContext& c) {
    const ElementType type = tf_element_type(c.i("element_dtype"), c.where());
    const auto shape = c.input_ints(0);
    const Tensor* s = c.input_value(0);
    if (s->shape().empty() || std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
        c.unsupported("a TensorList whose element shape is not known at conversion (element_shape has -1)");
    OutPort n = c.op("Reshape", "num_elements", {c.op("Convert", "num_elements/i64", {c.input(1)}, {{"destination_type", ElementType::i64}}),
                                                 c.i64s("num_elements/shape", {1})},
                     {{"special_zero", false}});
    OutPort dims = c.op("Concat", "shape", {n, c.i64s("element_shape", shape)}, {{"axis", int64_t{0}}});
    OutPort zero = c.constant("zero", Tensor::scalar<float>(0.f).convert(type));
    c.set_output(0, c.op("Broadcast", "", {zero, dims}, {{"mode", std::string("numpy")}}));
}

void set_item(ExtractContext& c) {
    if (c.i("resize_if_index_out_of_bounds", 0)) c.unsupported("TensorListSetItem with resize_if_index_out_of_bounds");
    OutPort index = c.op("Reshape", "index", {c.input(1), c.i64s("index/shape", {1})}, {{"special_zero", false}});
    OutPort item = c.op("Unsqueeze", "item", {c.input(2), c.i64s("item/axes", {0})});
    c.set_output(0, c.op("ScatterUpdate", "", {c.input(0), index, item, c.i64("axis", 0)}));
}

void gather(ExtractContext& c) {
    c.set_output(0, c.op("Gather", "", {c.input(0), c.input(1), c.i64("axis", 0)}, {{"batch_dims", int64_t{0}}}));
}

void length(ExtractContext& c) {
    OutPort shape = c.op("ShapeOf", "shape", {c.input(0)}, {{"output_type", ElementType::i32}});
    c.set_output(0, c.op("Gather", "", {shape, c.i64("index", 0), c.i64("axis", 0)}, {{"batch_dims", int64_t{0}}}));
}

}  // namespace

void register_tf_tensor_list(ExtractorRegistry& r) {
    r.add({"tf", "", "TensorListReserve", 1, INT64_MAX, reserve});
    for (const char* op : {"TensorListFromTensor", "TensorListStack"})
        r.add({"tf", "", op, 1, INT64_MAX, [](ExtractContext& c) { c.set_output(0, c.input(0)); }});
    r.add({"tf", "", "TensorListGetItem", 1, INT64_MAX, gather});
    r.add({"tf", "", "TensorListGather", 1, INT64_MAX, gather});
    r.add({"tf", "", "TensorListSetItem", 1, INT64_MAX, set_item});
    r.add({"tf", "", "TensorListLength", 1, INT64_MAX, length});
}

}  // namespace mo
