// Compares evaluated outputs with references, element by element.
//
// Floats (f16, bf16, f32, f64; compared as double, so an f16 output may be checked against an
// f32 reference): for each element, abs_error = |actual - expected| and
// rel_error = abs_error / max(|expected|, 1e-6). An element mismatches when
// abs_error > atol AND rel_error > rtol (it passes when within either tolerance). Also reported:
// max_abs_error / max|expected| (the error relative to the output's range, which stays meaningful
// where single elements are near zero, e.g. logits; docs/validation.md). NaN must be
// NaN in both, +Inf/-Inf must be the same infinity in both; such elements do not enter the
// maximum errors. Integers and booleans: exact equality, same element type.
// Shapes must be equal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace mo {

struct Tolerance {
    double atol = 1e-5;
    double rtol = 1e-5;
};

struct Comparison {
    std::string name;              // output name, for the report line
    bool ok = false;
    std::string problem;           // set when the tensors cannot be compared (shape or type)
    size_t elements = 0;
    size_t mismatches = 0;         // elements outside the tolerance, or unequal
    size_t special_mismatches = 0; // NaN/Inf positions that differ (included in mismatches)
    double max_abs_error = 0;      // floats only, over finite pairs
    double max_rel_error = 0;
    double max_abs_expected = 0;   // over finite expected elements
    // max_abs_error / max_abs_expected (0 when the reference is all zeros and the error too).
    double range_rel_error() const;
    size_t first_mismatch = 0;     // flat index of the first mismatch (when mismatches > 0)
};

// Floats use `tol`; integers and booleans ignore it.
Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tol = {}, std::string name = {});

// One line: "OK   y: 24 elements, max abs 3.1e-07, max rel 2.0e-06, max abs/max|ref| 1.5e-07" or
// "FAIL y: 3 of 24 elements differ (first at 5), max abs 0.5, max rel 1.2, max abs/max|ref| 0.25".
std::string format_comparison(const Comparison& c);

}  // namespace mo
