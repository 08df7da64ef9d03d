#include "transforms/support/fusion_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace mo::test {

FusionOutcome run_fusion(Transformation& pass, TestGraph& t, const std::map<std::string, Tensor>& inputs) {
    infer(t.graph());
    std::vector<Tensor> before = evaluate(t.graph(), inputs);
    FusionOutcome r;
    r.changed = run_pass(pass, t.graph());
    for (const Node& n : t->nodes())
        if (!n.is("Constant")) ++r.types[n.type()];
    std::vector<Tensor> after = evaluate(t.graph(), inputs);
    EXPECT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
        std::vector<double> a = before[i].to_f64(), b = after[i].to_f64();
        EXPECT_EQ(a.size(), b.size());
        for (size_t k = 0; k < a.size() && k < b.size(); ++k) r.max_abs_diff = std::max(r.max_abs_diff, std::abs(a[k] - b[k]));
    }
    return r;
}

Tensor ramp(const Shape& shape, float from, float to) {
    const int64_t n = shape_size(shape);
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = n == 1 ? from : from + (to - from) * static_cast<float>(i) / static_cast<float>(n - 1);
    return Tensor::from_vector<float>(v, shape);
}

}  // namespace mo::test
