// Helpers for op tests: run an op's shape inference, or build it over constant inputs, infer
// and evaluate it while checking that evaluation agrees with inference.
#pragma once

#include <string>
#include <vector>

#include "core/graph.hpp"

namespace mo::test {

// Runs the node's shape inference.
void infer(Node n);

// Builds `type` over constant inputs, infers it, evaluates it, and checks (gtest EXPECTs) that
// every evaluated output has the inferred type and shape.
std::vector<Tensor> run_op(const std::string& type, const std::vector<Tensor>& inputs, const AttrMap& attrs = {});

template <typename T>
std::vector<T> values(const Tensor& t) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.size());
}

// from, from + 1, ... (n values).
std::vector<float> iota(size_t n, float from = 1);

}  // namespace mo::test
