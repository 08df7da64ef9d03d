// Running a fusion pass on a test graph: what changed, which ops remain, and how far the
// outputs moved (the graph is evaluated with each op's eval before and after).
#pragma once

#include <map>
#include <string>

#include "transforms/support/transform_test_graph.hpp"

namespace mo::test {

struct FusionOutcome {
    bool changed = false;
    std::map<std::string, int> types;  // op type -> node count, Constants left out
    double max_abs_diff = 0;           // over every output element, after vs before
};

FusionOutcome run_fusion(Transformation& pass, TestGraph& t, const std::map<std::string, Tensor>& inputs);

// `shape`'s element count of f32 values evenly spaced from `from` to `to`.
Tensor ramp(const Shape& shape, float from, float to);

}  // namespace mo::test
