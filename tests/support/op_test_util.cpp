#include "support/op_test_util.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include <fstream>

#include "support/graph_builder.hpp"

namespace mo::test {

void infer(Node n) {
    InferContext c(n);
    n.op().infer(c);
}

PartialShape inferred(Node n, size_t port) {
    infer(n);
    return n.out(port).shape();
}

std::vector<Tensor> run_op(const std::string& type, const std::vector<Tensor>& inputs, const AttrMap& attrs) {
    GraphBuilder b;
    std::vector<OutPort> ports;
    for (size_t i = 0; i < inputs.size(); ++i)
        ports.push_back(b.graph().add_constant("in" + std::to_string(i), inputs[i]).out(0));
    Node n = b.node(type, ports, attrs);
    infer(n);
    auto out = n.op().eval(n, inputs);
    EXPECT_EQ(out.size(), n.output_count());
    for (size_t j = 0; j < out.size() && j < n.output_count(); ++j) {
        EXPECT_EQ(out[j].type(), n.out(j).type()) << type << " output " << j;
        EXPECT_EQ(PartialShape(out[j].shape()), n.out(j).shape()) << type << " output " << j;
    }
    return out;
}

std::optional<nlohmann::json> load_opsets_json() {
    std::ifstream file(std::string(MO_SHARED_DIR) + "/ir/opsets.json");
    if (!file) return std::nullopt;
    return nlohmann::json::parse(file);
}

void expect_schemas_match_opsets_json(
    const OpRegistry& r, const nlohmann::json& json,
    const std::function<void(const std::string& type, std::vector<std::string>& attrs)>& adjust) {
    for (const auto& type : r.types()) {
        const OpSchema& s = r.get(type);
        SCOPED_TRACE(type);
        ASSERT_TRUE(json["opsets"]["opset15"].contains(type));
        EXPECT_EQ(s.ir_version, json["opsets"]["opset15"][type].get<std::string>());
        const auto& op = json["ops"][type + "-" + s.ir_version.substr(5)];
        EXPECT_EQ(s.ir_type, op["ir_type"].get<std::string>());
        if (!op.value("spec_read", false)) continue;  // attributes not transcribed for this op
        std::vector<std::string> names, expected;
        for (const auto& a : s.attrs) names.push_back(a.name);
        for (const auto& a : op["attributes"]) expected.push_back(a["name"].get<std::string>());
        if (adjust) adjust(type, expected);
        EXPECT_EQ(names, expected);
        EXPECT_EQ(s.min_inputs, op["inputs"]["min"].get<size_t>());
        EXPECT_EQ(s.max_inputs, op["inputs"]["max"].get<size_t>());
    }
}

Tensor f32(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }
Tensor f32(std::vector<float> v) { Shape s{static_cast<int64_t>(v.size())}; return f32(std::move(v), std::move(s)); }
Tensor i32(std::vector<int32_t> v, Shape s) { return Tensor::from_vector<int32_t>(v, std::move(s)); }
Tensor i32(std::vector<int32_t> v) { Shape s{static_cast<int64_t>(v.size())}; return i32(std::move(v), std::move(s)); }
Tensor boolean(std::vector<bool> v, Shape s) { return Tensor::from_vector<bool>(v, std::move(s)); }
Tensor boolean(std::vector<bool> v) { Shape s{static_cast<int64_t>(v.size())}; return boolean(std::move(v), std::move(s)); }

Tensor packed(ElementType type, std::vector<uint8_t> bytes, int64_t count) {
    std::vector<std::byte> b(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) b[i] = std::byte{bytes[i]};
    return Tensor(type, Shape{count}, std::make_shared<OwnedBuffer>(std::move(b)));
}

std::vector<uint8_t> bytes_of(const Tensor& t) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.bytes());
    return std::vector<uint8_t>(p, p + t.byte_size());
}

std::vector<float> iota(size_t n, float from) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from + static_cast<float>(i);
    return v;
}

void expect_close(const Tensor& got, const Tensor& want, double atol, double rtol, const std::string& what) {
    ASSERT_EQ(got.shape(), want.shape()) << what;
    const auto g = got.to_f64(), w = want.to_f64();
    for (size_t i = 0; i < w.size(); ++i) ASSERT_NEAR(g[i], w[i], atol + rtol * std::abs(w[i])) << what << " element " << i;
}

std::vector<Node> compressed_constants(const Graph& g, std::initializer_list<ElementType> types) {
    std::vector<Node> found;
    for (const Node& n : g.nodes()) {
        if (!n.is("Constant") || std::find(types.begin(), types.end(), n.out(0).type()) == types.end()) continue;
        found.push_back(n);
        EXPECT_EQ(n.out(0).targets().size(), 1u) << n.describe();
        if (n.out(0).targets().size() != 1) continue;
        const Node convert = n.out(0).targets()[0].node();
        EXPECT_TRUE(convert.is("Convert")) << convert.describe();
        EXPECT_EQ(convert.rt_info().count(kDecompression), 1u) << convert.describe();
    }
    return found;
}

}  // namespace mo::test
