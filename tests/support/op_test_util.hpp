// Helpers for op tests: run an op's shape inference, or build it over constant inputs, infer
// and evaluate it while checking that evaluation agrees with inference.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/graph.hpp"

namespace mo::test {

// Runs the node's shape inference.
void infer(Node n);
// Runs it and returns output `port`'s shape.
PartialShape inferred(Node n, size_t port = 0);

// Builds `type` over constant inputs, infers it, evaluates it, and checks (gtest EXPECTs) that
// every evaluated output has the inferred type and shape.
std::vector<Tensor> run_op(const std::string& type, const std::vector<Tensor>& inputs, const AttrMap& attrs = {});

template <typename T>
std::vector<T> values(const Tensor& t) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.size());
}

// shared/ir/opsets.json, or nothing when ../shared is absent (the caller skips).
std::optional<nlohmann::json> load_opsets_json();

// EXPECTs that every schema of `r` matches opsets.json: IR version, IR spelling, attribute
// names in order, input counts. `adjust` may edit a type's expected attribute names where the
// runtime's order differs from the spec's.
void expect_schemas_match_opsets_json(
    const OpRegistry& r, const nlohmann::json& opsets,
    const std::function<void(const std::string& type, std::vector<std::string>& attrs)>& adjust = {});

// Tensors of the given values and shape; 1D when no shape is given.
// The Constants of `types` in `g` (low-bit weights), EXPECTing each to be read by exactly one
// Convert marked as decompression: the compressed-weight form the IR keeps them in.
std::vector<Node> compressed_constants(const Graph& g, std::initializer_list<ElementType> types);

Tensor f32(std::vector<float> v, Shape s);
Tensor f32(std::vector<float> v);
Tensor i32(std::vector<int32_t> v, Shape s);
Tensor i32(std::vector<int32_t> v);
Tensor boolean(std::vector<bool> v, Shape s);
Tensor boolean(std::vector<bool> v);

// A 1D tensor of `count` elements of `type` over the given raw bytes (packed types: u1/u4/i4),
// and a tensor's raw bytes.
Tensor packed(ElementType type, std::vector<uint8_t> bytes, int64_t count);
std::vector<uint8_t> bytes_of(const Tensor& t);

// ASSERTs (in the caller, wrap in ASSERT_NO_FATAL_FAILURE to stop there) equal shapes and every
// element within atol + rtol·|want| of `want`; `what` names the output in the failure.
void expect_close(const Tensor& got, const Tensor& want, double atol, double rtol, const std::string& what);

// EXPECTs that f() throws a mo::Error whose text contains every one of `fragments`.
template <typename F>
void expect_error(F&& f, std::initializer_list<const char*> fragments) {
    try {
        f();
        FAIL() << "no error; expected one mentioning '" << *fragments.begin() << "'";
    } catch (const Error& e) {
        for (const auto& fragment : fragments)
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << fragment << " not in: " << e.what();
    }
}
template <typename F>
void expect_error(F&& f, const std::string& fragment) {
    expect_error(std::forward<F>(f), {fragment.c_str()});
}

// from, from + 1, ... (n values).
std::vector<float> iota(size_t n, float from = 1);

}  // namespace mo::test
