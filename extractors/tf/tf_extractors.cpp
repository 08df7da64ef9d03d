#include "extractors/tf/tf_extractors.hpp"

#include "loaders/tf/tf_tensor.hpp"

namespace mo {

void register_tf_extractors(ExtractorRegistry& r) {
    register_tf_conv_pool(r);
    register_tf_elementwise(r);
    register_tf_shape(r);
    register_tf_slice_gather(r);
    register_tf_detection(r);
    register_tf_control_flow(r);
    register_tf_tensor_list(r);
}

bool tf_nhwc(ExtractContext& c) {
    const std::string f = c.s("data_format", "NHWC");
    if (f != "NHWC" && f != "NCHW") c.unsupported("data_format " + f);
    return f == "NHWC";
}

ElementType tf_index_type(ExtractContext& c, std::string_view attr, int64_t def) {
    const int64_t type = c.i(attr, def);
    if (type != mo_tf::DT_INT32 && type != mo_tf::DT_INT64)
        c.fail(std::string(attr) + " is " + tf_type_name(type) + "; it must be DT_INT32 or DT_INT64",
               "the model is corrupt; re-export it");
    return type == mo_tf::DT_INT32 ? ElementType::i32 : ElementType::i64;
}

std::optional<OutPort> tf_activation(ExtractContext& c, const std::string& op, const OutPort& x,
                                     const std::string& suffix, double leaky_alpha) {
    if (op == "Relu") return c.op("Relu", suffix, {x});
    if (op == "Relu6") return c.op("Clamp", suffix, {x}, {{"min", 0.0}, {"max", 6.0}});
    if (op == "Elu") return c.op("Elu", suffix, {x}, {{"alpha", 1.0}});
    if (op == "Sigmoid") return c.op("Sigmoid", suffix, {x});
    if (op == "Tanh") return c.op("Tanh", suffix, {x});
    if (op == "Softplus") return c.op("SoftPlus", suffix, {x});
    if (op == "LeakyRelu") return c.op("PRelu", suffix, {x, c.scalar_like(suffix + "/alpha", leaky_alpha, x)});
    if (op == "Selu")
        return c.op("Selu", suffix,
                    {x, c.scalar_like(suffix + "/alpha", 1.6732632423543772, x),
                     c.scalar_like(suffix + "/lambda", 1.0507009873554805, x)});
    return std::nullopt;
}

}  // namespace mo
