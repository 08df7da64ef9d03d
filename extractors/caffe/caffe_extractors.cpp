#include "extractors/caffe/caffe_extractors.hpp"

namespace mo {

void register_caffe_extractors(ExtractorRegistry& r) {
    register_caffe_conv_pool(r);
    register_caffe_elementwise(r);
    register_caffe_normalization(r);
    register_caffe_shape(r);
    register_caffe_detection(r);
    register_caffe_resize(r);
}

namespace caffe {

void add(ExtractorRegistry& r, const std::string& type, ExtractFn fn) {
    r.add({"caffe", "", type, 1, INT64_MAX, [fn = std::move(fn)](ExtractContext& c) {
               const auto unknown = c.strings("unknown_fields");
               if (!unknown.empty()) {
                   std::string list;
                   for (const auto& f : unknown) list += (list.empty() ? "" : ", ") + f;
                   c.fail("the layer sets " + list + ", which mo's caffe.proto subset does not know; mo would ignore it",
                          "remove the field if the layer does not need it, or convert the layer with a plugin "
                          "(docs/extending.md)");
               }
               fn(c);
           }});
}

Tensor blob(ExtractContext& c, size_t i, const std::string& what) {
    const std::string name = "blobs." + std::to_string(i);
    if (!c.has(name))
        c.fail("the layer's " + what + " (blob " + std::to_string(i) + ") is missing",
               "pass the .caffemodel that holds the layer's weights with --input_model");
    return c.tensor(name);
}

size_t blob_count(ExtractContext& c) {
    size_t n = 0;
    while (c.has("blobs." + std::to_string(n))) ++n;
    return n;
}

OutPort blob_as(ExtractContext& c, size_t i, const std::string& what, const Shape& shape) {
    Tensor t = blob(c, i, what);
    if (static_cast<int64_t>(t.size()) != shape_size(shape))
        c.fail("the layer's " + what + " (blob " + std::to_string(i) + ") holds " + std::to_string(t.size()) +
                   " values where " + std::to_string(shape_size(shape)) + " are expected",
               "the .caffemodel does not match the prototxt; pass the model's own weights");
    return c.constant(what, t.shape() == shape ? t : t.reshaped(shape));
}

int64_t axis(ExtractContext& c, int64_t axis, int64_t rank, const std::string& what) {
    if (axis < -rank || axis >= rank)
        c.fail(what + " " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank),
               "fix the model");
    return axis < 0 ? axis + rank : axis;
}

int64_t input_rank(ExtractContext& c, size_t i, const std::string& why) {
    const int64_t rank = ExtractContext::rank_of(c.input(i));
    if (rank < 0) c.fail("the rank of input " + std::to_string(i) + " is unknown, and " + why, "give the inputs shapes with --input_shape");
    return rank;
}

OutPort broadcast_along(ExtractContext& c, const OutPort& v, const std::vector<int64_t>& dims, int64_t axis,
                        int64_t rank, const std::string& suffix) {
    std::vector<int64_t> shape = dims;
    while (static_cast<int64_t>(shape.size()) + axis < rank) shape.push_back(1);
    if (shape == dims) return v;
    return c.op("Reshape", suffix, {v, c.i64s(suffix + "/shape", shape)}, {{"special_zero", false}});
}

OutPort scalar(ExtractContext& c, const std::string& suffix, double value) {
    return c.constant(suffix, Tensor::scalar<float>(static_cast<float>(value)));
}

}  // namespace caffe
}  // namespace mo
