#include "validate/compare.hpp"

#include <cmath>
#include <cstdio>

namespace mo {

namespace {

constexpr double kRelativeFloor = 1e-6;  // keeps rel_error finite near zero references

std::string shape_text(const Shape& s) {
    std::string text = "[";
    text += PartialShape(s).to_string();
    return text + "]";
}

void note_mismatch(Comparison& c, size_t i) {
    if (c.mismatches++ == 0) c.first_mismatch = i;
}

void compare_floats(Comparison& c, const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
    const std::vector<double> a = actual.to_f64(), e = expected.to_f64();
    for (size_t i = 0; i < a.size(); ++i) {
        const bool a_finite = std::isfinite(a[i]), e_finite = std::isfinite(e[i]);
        if (!a_finite || !e_finite) {
            const bool same = (std::isnan(a[i]) && std::isnan(e[i])) || (std::isinf(a[i]) && a[i] == e[i]);
            if (!same) {
                ++c.special_mismatches;
                note_mismatch(c, i);
            }
            continue;
        }
        const double abs_error = std::abs(a[i] - e[i]);
        const double rel_error = abs_error / std::max(std::abs(e[i]), kRelativeFloor);
        c.max_abs_error = std::max(c.max_abs_error, abs_error);
        c.max_rel_error = std::max(c.max_rel_error, rel_error);
        c.max_abs_expected = std::max(c.max_abs_expected, std::abs(e[i]));
        if (abs_error > tol.atol && rel_error > tol.rtol) note_mismatch(c, i);
    }
}

void compare_exact(Comparison& c, const Tensor& actual, const Tensor& expected) {
    const std::vector<int64_t> a = actual.to_i64(), e = expected.to_i64();
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != e[i]) note_mismatch(c, i);
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

}  // namespace

double Comparison::range_rel_error() const {
    if (max_abs_expected > 0) return max_abs_error / max_abs_expected;
    return max_abs_error > 0 ? INFINITY : 0.0;
}

Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tol, std::string name) {
    Comparison c;
    c.name = std::move(name);
    if (actual.empty() || expected.empty()) {
        c.problem = actual.empty() ? "no actual value" : "no expected value";
        return c;
    }
    if (actual.shape() != expected.shape()) {
        c.problem = "shape " + shape_text(actual.shape()) + " differs from the expected " + shape_text(expected.shape());
        return c;
    }
    const bool floats = is_float(actual.type()) && is_float(expected.type());
    if (!floats && actual.type() != expected.type()) {
        c.problem = "element type " + std::string(ir_name(actual.type())) + " differs from the expected " +
                    std::string(ir_name(expected.type()));
        return c;
    }
    c.elements = actual.size();
    try {
        if (floats) compare_floats(c, actual, expected, tol);
        else compare_exact(c, actual, expected);
    } catch (const std::exception& e) {
        c.problem = e.what();  // an element type without readable values (e.g. string)
        return c;
    }
    c.ok = c.mismatches == 0;
    return c;
}

std::string format_comparison(const Comparison& c) {
    std::string line = (c.ok ? "OK   " : "FAIL ") + (c.name.empty() ? std::string("output") : c.name) + ": ";
    if (!c.problem.empty()) return line + c.problem;
    if (c.ok) line += std::to_string(c.elements) + " elements";
    else
        line += std::to_string(c.mismatches) + " of " + std::to_string(c.elements) + " elements differ (first at " +
                std::to_string(c.first_mismatch) + ")";
    if (c.special_mismatches) line += ", " + std::to_string(c.special_mismatches) + " NaN/Inf positions differ";
    if (c.max_abs_error > 0 || c.max_rel_error > 0)
        line += ", max abs " + number(c.max_abs_error) + ", max rel " + number(c.max_rel_error) +
                ", max abs/max|ref| " + number(c.range_rel_error());
    return line;
}

}  // namespace mo
