#include "support/op_test_util.hpp"

#include <gtest/gtest.h>

#include "support/graph_builder.hpp"

namespace mo::test {

void infer(Node n) {
    InferContext c(n);
    n.op().infer(c);
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

std::vector<float> iota(size_t n, float from) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from + static_cast<float>(i);
    return v;
}

}  // namespace mo::test
