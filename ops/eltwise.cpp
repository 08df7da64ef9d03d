// Element-wise ops: unary math and activations, binary arithmetic, comparisons and logic with
// numpy / none broadcasting, Convert and Select. Each op is one row below: its name, opset, the
// element types it accepts and the scalar function it applies; the loops are shared.
//
// Integer inputs of ops defined on reals (Sqrt, Exp, Sin, ...) are computed in double and rounded
// to the nearest integer, saturating to the type's range (OpenVINO's integral Sqrt/Exp rounding).
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "core/graph.hpp"
#include "core/low_bit.hpp"
#include "ops/op_utils.hpp"

namespace mo {
namespace {

// ---- Element types ---------------------------------------------------------------------------

enum class Accepts { Any, Numeric, Float, Boolean, Integer };

bool accepts(Accepts a, ElementType t) {
    if (t == ElementType::dynamic) return true;
    switch (a) {
    case Accepts::Any: return t != ElementType::string;
    case Accepts::Numeric: return is_float(t) || is_integral(t);
    case Accepts::Float: return is_float(t);
    case Accepts::Boolean: return t == ElementType::boolean;
    case Accepts::Integer: return is_integral(t);
    }
    return false;
}

const char* describe(Accepts a) {
    switch (a) {
    case Accepts::Any: return "any type";
    case Accepts::Numeric: return "a numeric type";
    case Accepts::Float: return "a floating-point type";
    case Accepts::Boolean: return "boolean";
    case Accepts::Integer: return "an integer type";
    }
    return "";
}

void check_type(const InferContext& c, size_t input, Accepts a) {
    ElementType t = c.in_type(input);
    if (!accepts(a, t))
        c.fail("input " + std::to_string(input) + " has element type " + std::string(ir_name(t)) + ", expected " +
                   describe(a),
               "insert a Convert before this op");
}

// The common element type of `inputs` (dynamic ones adopt the others); fails on a mismatch.
ElementType merge_types(const InferContext& c, std::initializer_list<size_t> inputs) {
    ElementType merged = ElementType::dynamic;
    for (size_t i : inputs) {
        ElementType t = c.in_type(i);
        if (t == ElementType::dynamic) continue;
        if (merged != ElementType::dynamic && merged != t)
            c.fail("inputs have different element types (" + std::string(ir_name(merged)) + " and " +
                       std::string(ir_name(t)) + ")",
                   "insert a Convert so that both inputs have the same type");
        merged = t;
    }
    return merged;
}

// ---- Broadcasting ----------------------------------------------------------------------------

PartialShape broadcast_none(const InferContext& c, const PartialShape& a, const PartialShape& b) {
    if (!a.rank_is_static()) return b;
    if (!b.rank_is_static()) return a;
    auto mismatch = [&] {
        c.fail("shapes [" + a.to_string() + "] and [" + b.to_string() + "] differ and auto_broadcast is 'none'",
               "make the shapes equal or use auto_broadcast 'numpy'");
    };
    if (a.rank() != b.rank()) mismatch();
    std::vector<Dimension> dims(a.rank());
    for (size_t i = 0; i < a.rank(); ++i) {
        if (!a[i].compatible(b[i])) mismatch();
        dims[i] = Dimension::merge(a[i], b[i]);
    }
    return PartialShape(dims);
}

PartialShape broadcast_shapes(const InferContext& c, const PartialShape& a, const PartialShape& b) {
    const auto mode = c.attr<std::string>("auto_broadcast");
    if (mode == "numpy") {
        try {
            return broadcast_numpy(a, b);
        } catch (const Error& e) {
            c.fail(e.what_part(), "check the input shapes: numpy broadcasting aligns them from the last dimension");
        }
    }
    if (mode == "none") return broadcast_none(c, a, b);
    c.fail("auto_broadcast '" + mode + "' is not supported", "use 'numpy' or 'none'");
}

// The static output shape of an evaluation (inputs are concrete).
Shape eval_broadcast(const Node& n, const std::vector<const Tensor*>& inputs) {
    const auto mode = n.attr<std::string>("auto_broadcast");
    Shape out = inputs.front()->shape();
    for (size_t i = 1; i < inputs.size(); ++i) {
        const Shape& s = inputs[i]->shape();
        if (mode == "none") {
            if (s != out) throw Error("input shapes differ and auto_broadcast is 'none'", n.describe());
        } else {
            try {
                out = broadcast_numpy(PartialShape(out), PartialShape(s)).to_shape();
            } catch (const Error& e) {
                throw Error(e.what_part(), n.describe());
            }
        }
    }
    return out;
}

// Calls visit(out_index, offsets) for every element of `out`, with each input's offset under
// numpy broadcasting (any number of inputs; Select has three).
template <typename Visit>
void for_each_broadcast_n(const Shape& out, const std::vector<Shape>& ins, Visit&& visit) {
    const size_t rank = out.size();
    std::vector<std::vector<int64_t>> strides;
    for (const auto& s : ins) strides.push_back(broadcast_strides(s, out));
    std::vector<int64_t> idx(rank, 0), off(ins.size(), 0);
    const int64_t total = shape_size(out);
    for (int64_t i = 0; i < total; ++i) {
        visit(i, off);
        for (size_t d = rank; d-- > 0;) {
            if (++idx[d] < out[d]) {
                for (size_t k = 0; k < ins.size(); ++k) off[k] += strides[k][d];
                break;
            }
            for (size_t k = 0; k < ins.size(); ++k) off[k] -= strides[k][d] * (out[d] - 1);
            idx[d] = 0;
        }
    }
}

// ---- Scalar semantics --------------------------------------------------------------------------

// A real-valued function applied to T: floats natively, integers in double then rounded.
template <typename T, typename F>
T apply_real(const F& f, T x) {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(f(x));
    else return saturate_cast<T>(std::round(static_cast<double>(f(static_cast<double>(x)))));
}

template <typename T>
bool is_negative(T x) {
    if constexpr (std::is_unsigned_v<T>) return false;
    else return x < T(0);
}

[[noreturn]] void division_by_zero(const Node& n) {
    throw Error("integer division by zero", n.describe(), "the divisor input contains 0");
}

// Divide: floats divide; integers truncate, or floor with m_pythondiv.
template <typename T>
T divide(const Node& n, T a, T b, bool python_div) {
    if constexpr (std::is_floating_point_v<T>) {
        return a / b;
    } else {
        if (b == 0) division_by_zero(n);
        if constexpr (std::is_signed_v<T>) {
            if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));  // wraps at MIN
            T q = static_cast<T>(a / b);
            if (python_div && a % b != 0 && ((a < 0) != (b < 0))) --q;
            return q;
        } else {
            return static_cast<T>(a / b);
        }
    }
}

// Mod (sign of the dividend) and FloorMod (sign of the divisor).
template <typename T>
T remainder(const Node& n, T a, T b, bool floor_mode) {
    if constexpr (std::is_floating_point_v<T>) {
        T r = std::fmod(a, b);
        if (floor_mode && r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
    } else {
        if (b == 0) division_by_zero(n);
        if constexpr (std::is_signed_v<T>) {
            if (b == -1) return 0;
            T r = static_cast<T>(a % b);
            if (floor_mode && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
            return r;
        } else {
            return static_cast<T>(a % b);
        }
    }
}

template <typename T>
T power(T base, T exponent) {
    if constexpr (std::is_floating_point_v<T>) {
        return std::pow(base, exponent);
    } else {
        if (is_negative(exponent)) return saturate_cast<T>(std::pow(double(base), double(exponent)));
        // exact integer power by squaring (wraps like integer multiplication)
        using U = std::make_unsigned_t<T>;
        U result = 1, b = static_cast<U>(base);
        for (U e = static_cast<U>(exponent); e; e >>= 1) {
            if (e & 1) result = static_cast<U>(result * b);
            b = static_cast<U>(b * b);
        }
        return static_cast<T>(result);
    }
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

// ---- Op families -------------------------------------------------------------------------------

// A unary op: output type and shape are the input's. `make(node, inputs)` returns the scalar
// function; `real` selects apply_real (functions of reals) over applying it to T directly.
// Inputs after the first are scalar parameters of the data's type (HardSigmoid alpha, ...).
template <typename Make>
OpSchema unary(std::string type, std::string version, Accepts acc, Make make, bool real,
               std::vector<AttrSpec> attrs = {}, size_t params = 0, size_t required_params = SIZE_MAX) {
    if (required_params == SIZE_MAX) required_params = params;
    // Relu is the one unary op whose IR spelling differs ("ReLU").
    const std::string ir_type = type == "Relu" ? "ReLU" : type;
    OpSchema s = make_schema(type, ir_type, std::move(version), 1 + required_params, 1 + params, 1, std::move(attrs));
    s.infer = [acc, params](InferContext& c) {
        check_type(c, 0, acc);
        for (size_t i = 1; i <= params && c.has_input(i); ++i) {
            merge_types(c, {0, i});
            const auto& ps = c.in_shape(i);
            if (ps.is_static() && shape_size(ps.to_shape()) != 1)
                c.fail("input " + std::to_string(i) + " must hold a single value, got shape [" + ps.to_string() + "]");
        }
        c.set_output(0, c.in_type(0), c.in_shape(0));
    };
    s.eval = half_via_f32([make, real, acc](const Node& n, const std::vector<Tensor>& in) {
        const Tensor& x = in.at(0);
        auto f = make(n, in);
        Tensor out = Tensor::allocate(x.type(), x.shape());
        dispatch_type(
            x.type(),
            [&]<typename T>() {
                const T* src = x.data<T>();
                T* dst = out.mutable_data<T>();
                if (real)
                    for (size_t i = 0; i < x.size(); ++i) dst[i] = apply_real<T>(f, src[i]);
                else
                    for (size_t i = 0; i < x.size(); ++i) dst[i] = static_cast<T>(f(src[i]));
            },
            acc == Accepts::Boolean);
        return std::vector<Tensor>{out};
    });
    return s;
}

// A scalar function that ignores the node: most unary ops.
template <typename F>
auto plain(F f) {
    return [f](const Node&, const std::vector<Tensor>&) { return f; };
}

// The value of scalar parameter input `i`, or `fallback` when absent.
double param(const std::vector<Tensor>& in, size_t i, double fallback) {
    if (i >= in.size() || in[i].empty()) return fallback;
    auto v = in[i].to_f64();
    if (v.empty()) throw Error("a scalar parameter input is empty");
    return v[0];
}

enum class BinaryKind { Arithmetic, Comparison, Logical, Bitwise };

// A binary op with auto_broadcast. Arithmetic and bitwise ops keep the input type, comparisons
// and logic give boolean. `make(node)` returns f(a, b) on T.
template <typename Make>
OpSchema binary(std::string type, BinaryKind kind, Make make, std::vector<AttrSpec> extra_attrs = {}) {
    std::vector<AttrSpec> attrs = std::move(extra_attrs);
    attrs.push_back({"auto_broadcast", AttrKind::String, std::string("numpy")});
    OpSchema s = make_schema(type, type, "opset1", 2, 2, 1, std::move(attrs));
    const Accepts acc = kind == BinaryKind::Arithmetic ? Accepts::Numeric
                        : kind == BinaryKind::Logical  ? Accepts::Boolean
                        : kind == BinaryKind::Bitwise  ? Accepts::Integer
                                                       : Accepts::Any;
    const bool keeps_type = kind == BinaryKind::Arithmetic || kind == BinaryKind::Bitwise;
    s.infer = [acc, keeps_type](InferContext& c) {
        check_type(c, 0, acc);
        check_type(c, 1, acc);
        ElementType t = merge_types(c, {0, 1});
        PartialShape shape = broadcast_shapes(c, c.in_shape(0), c.in_shape(1));
        c.set_output(0, keeps_type ? t : ElementType::boolean, shape);
    };
    s.eval = half_via_f32([make, keeps_type](const Node& n, const std::vector<Tensor>& in) {
        const Tensor &a = in.at(0), &b = in.at(1);
        if (a.type() != b.type()) throw Error("inputs have different element types", n.describe());
        Shape shape = eval_broadcast(n, {&a, &b});
        auto f = make(n);
        ElementType out_type = keeps_type ? a.type() : ElementType::boolean;
        Tensor out = Tensor::allocate(out_type, shape);
        dispatch_type(
            a.type(),
            [&]<typename T>() {
                const T *pa = a.data<T>(), *pb = b.data<T>();
                if (keeps_type) {
                    T* po = out.mutable_data<T>();
                    for_each_broadcast(shape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
                        po[i] = static_cast<T>(f(pa[ia], pb[ib]));
                    });
                } else {
                    uint8_t* po = out.mutable_data<uint8_t>();
                    for_each_broadcast(shape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
                        po[i] = f(pa[ia], pb[ib]) ? 1 : 0;
                    });
                }
            },
            !keeps_type);
        return std::vector<Tensor>{out};
    });
    return s;
}

template <typename F>
auto plain_binary(F f) {
    return [f](const Node&) { return f; };
}

// BitwiseLeftShift-15 / BitwiseRightShift-15. The spec leaves counts < 0 or >= the bit width
// implementation-defined; here they shift every bit out (0, or -1 for a negative value shifted
// right), which is what shifting one bit at a time gives. Left shifts wrap modulo 2^N.
template <typename T>
T shift_bits(T a, T b, bool left) {
    if constexpr (!std::is_integral_v<T>) {
        throw Error("bitwise shifts need integer inputs");
    } else {
        constexpr int64_t bits = sizeof(T) * 8;
        const auto count = static_cast<int64_t>(b);
        if (count < 0 || count >= bits) return left || !is_negative(a) ? T(0) : static_cast<T>(-1);
        if (left) return static_cast<T>(static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a)) << count);
        return static_cast<T>(a >> count);
    }
}

OpSchema bitwise_shift(std::string type, bool left) {
    OpSchema s = binary(std::move(type), BinaryKind::Bitwise, [left](const Node&) {
        return [left](auto a, auto b) { return shift_bits(a, b, left); };
    });
    s.ir_version = "opset15";
    return s;
}

// ---- Ops with their own shape rules --------------------------------------------------------------

// PRelu: a 1D slope whose length is the channel dim (axis 1) applies per channel; otherwise the
// slope broadcasts numpy-style to the data.
Shape prelu_slope_shape(const Shape& data, const Shape& slope) {
    if (slope.size() == 1 && data.size() >= 2 && slope[0] == data[1] && slope[0] != 1) {
        Shape s(data.size() - 1, 1);
        s[0] = slope[0];
        return s;  // [C, 1, ..., 1] aligned to axis 1
    }
    return slope;
}

OpSchema prelu() {
    OpSchema s = make_schema("PRelu", "PReLU", "opset1", 2, 2);
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Numeric);
        ElementType t = merge_types(c, {0, 1});
        const auto &data = c.in_shape(0), &slope = c.in_shape(1);
        if (data.rank_is_static() && slope.rank_is_static()) {
            bool per_channel = slope.rank() == 1 && data.rank() >= 2 && slope[0].compatible(data[1]);
            if (!per_channel) {
                PartialShape b;
                try {
                    b = broadcast_numpy(data, slope);
                } catch (const Error&) {
                    c.fail("slope shape [" + slope.to_string() + "] does not broadcast to data shape [" +
                               data.to_string() + "]",
                           "use a 1D slope of the channel count, or a shape that broadcasts to the data");
                }
                if (b.rank() != data.rank())
                    c.fail("slope shape [" + slope.to_string() + "] has a higher rank than the data");
            }
        }
        c.set_output(0, t, data);
    };
    s.eval = half_via_f32([](const Node& n, const std::vector<Tensor>& in) {
        const Tensor &x = in.at(0), &slope = in.at(1);
        if (x.type() != slope.type()) throw Error("data and slope have different element types", n.describe());
        Shape ss = prelu_slope_shape(x.shape(), slope.shape());
        if (ss.size() > x.shape().size() ||
            broadcast_numpy(PartialShape(x.shape()), PartialShape(ss)) != PartialShape(x.shape()))
            throw Error("slope does not broadcast to the data", n.describe());
        Tensor out = Tensor::allocate(x.type(), x.shape());
        dispatch_type(x.type(), [&]<typename T>() {
            const T *px = x.data<T>(), *ps = slope.data<T>();
            T* po = out.mutable_data<T>();
            for_each_broadcast(x.shape(), x.shape(), ss, [&](int64_t i, int64_t ix, int64_t is) {
                po[i] = is_negative(px[ix]) ? wrapping_mul(px[ix], ps[is]) : px[ix];
            });
        }, false);
        return std::vector<Tensor>{out};
    });
    return s;
}

// Convert-1: integers wrap modulo 2^N, floats truncate towards zero (saturating, NaN -> 0), any
// non-zero value becomes true. The same holds for u4/i4 (N = 4); u1 is 1 for any non-zero value.
template <typename To, typename From>
To convert_value(From v) {
    if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) return saturate_cast<To>(v);
    else return static_cast<To>(v);
}

Tensor convert_tensor(const Tensor& x, ElementType to) {
    if (x.type() == to) return x;
    // Packed sources unpack to u8/i8 exactly; Tensor::convert packs with the rules above (low_bit.hpp).
    if (is_low_bit(x.type())) return convert_tensor(unpack_low_bit(x), to);
    if (is_low_bit(to)) return x.convert(to);
    if (x.type() == ElementType::f16 || x.type() == ElementType::bf16)
        return convert_tensor(x.convert(ElementType::f32), to);
    if (to == ElementType::f16 || to == ElementType::bf16) return convert_tensor(x, ElementType::f32).convert(to);
    Tensor out = Tensor::allocate(to, x.shape());
    dispatch_type(x.type(), [&]<typename From>() {
        const From* src = x.data<From>();
        if (to == ElementType::boolean) {
            uint8_t* dst = out.mutable_data<uint8_t>();
            for (size_t i = 0; i < x.size(); ++i) dst[i] = src[i] != From(0) ? 1 : 0;
            return;
        }
        dispatch_type(to, [&]<typename To>() {
            To* dst = out.mutable_data<To>();
            for (size_t i = 0; i < x.size(); ++i) dst[i] = convert_value<To>(src[i]);
        }, false);
    });
    return out;
}

OpSchema convert() {
    OpSchema s = make_schema("Convert", "Convert", "opset1", 1, 1, 1, {{"destination_type", AttrKind::Type, {}}});
    s.infer = [](InferContext& c) {
        ElementType to = c.attr<ElementType>("destination_type");
        if (to == ElementType::string || c.in_type(0) == ElementType::string)
            c.fail("conversion to or from string is not supported");
        c.set_output(0, to, c.in_shape(0));
    };
    s.eval = [](const Node& n, const std::vector<Tensor>& in) {
        return std::vector<Tensor>{convert_tensor(in.at(0), n.attr<ElementType>("destination_type"))};
    };
    return s;
}

// FakeQuantize-1: x clamped to [input_low, input_high] and rounded to one of `levels` evenly
// spaced values, mapped onto [output_low, output_high]; the ranges broadcast against x (numpy).
// In the element type, rounding half to even, as OpenVINO's reference computes it.
OpSchema fake_quantize() {
    OpSchema s = make_schema("FakeQuantize", "FakeQuantize", "opset1", 5, 5, 1,
                             {{"levels", AttrKind::Int, {}}, {"auto_broadcast", AttrKind::String, std::string("numpy")}});
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Float);
        if (c.attr<int64_t>("levels") < 2) c.fail("levels must be at least 2");
        ElementType t = merge_types(c, {0, 1, 2, 3, 4});
        PartialShape out = c.in_shape(0);
        for (size_t i = 1; i < 5; ++i) out = broadcast_shapes(c, out, c.in_shape(i));
        c.set_output(0, t, out);
    };
    s.eval = half_via_f32([](const Node& n, const std::vector<Tensor>& in) {
        Shape shape = eval_broadcast(n, {&in[0], &in[1], &in[2], &in[3], &in[4]});
        Tensor out = Tensor::allocate(in[0].type(), shape);
        const auto steps = static_cast<double>(n.attr<int64_t>("levels") - 1);
        dispatch_type(in[0].type(), [&]<typename T>() {
            if constexpr (std::is_floating_point_v<T>) {
                const T *x = in[0].data<T>(), *il = in[1].data<T>(), *ih = in[2].data<T>(), *ol = in[3].data<T>(),
                        *oh = in[4].data<T>();
                const T levels_minus_one = static_cast<T>(steps);
                T* po = out.mutable_data<T>();
                for_each_broadcast_n(shape, {in[0].shape(), in[1].shape(), in[2].shape(), in[3].shape(), in[4].shape()},
                                     [&](int64_t i, const std::vector<int64_t>& o) {
                                         const T v = x[o[0]], lo = il[o[1]], hi = ih[o[2]], olo = ol[o[3]], ohi = oh[o[4]];
                                         if (v <= std::min(lo, hi)) po[i] = olo;
                                         else if (v > std::max(lo, hi)) po[i] = ohi;
                                         else
                                             po[i] = static_cast<T>(std::nearbyint((v - lo) / (hi - lo) * levels_minus_one) /
                                                                        levels_minus_one * (ohi - olo) + olo);
                                     });
            } else {
                throw Error("FakeQuantize of a non-float type", n.describe());
            }
        });
        return std::vector<Tensor>{out};
    });
    // The ranges decide every output value: compressing them to f16 would move them.
    s.precision_sensitive_inputs = {1, 2, 3, 4};
    return s;
}

OpSchema select() {
    OpSchema s = make_schema("Select", "Select", "opset1", 3, 3, 1, {{"auto_broadcast", AttrKind::String, std::string("numpy")}});
    s.infer = [](InferContext& c) {
        check_type(c, 0, Accepts::Boolean);
        ElementType t = merge_types(c, {1, 2});
        PartialShape values = broadcast_shapes(c, c.in_shape(1), c.in_shape(2));
        c.set_output(0, t, broadcast_shapes(c, values, c.in_shape(0)));
    };
    s.eval = half_via_f32([](const Node& n, const std::vector<Tensor>& in) {
        const Tensor &cond = in.at(0), &a = in.at(1), &b = in.at(2);
        if (a.type() != b.type()) throw Error("then and else have different element types", n.describe());
        if (cond.type() != ElementType::boolean) throw Error("the condition is not boolean", n.describe());
        Shape shape = eval_broadcast(n, {&a, &b, &cond});
        Tensor out = Tensor::allocate(a.type(), shape);
        const uint8_t* pc = cond.data<uint8_t>();
        dispatch_type(a.type(), [&]<typename T>() {
            const T *pa = a.data<T>(), *pb = b.data<T>();
            T* po = out.mutable_data<T>();
            for_each_broadcast_n(shape, {cond.shape(), a.shape(), b.shape()},
                                 [&](int64_t i, const std::vector<int64_t>& o) { po[i] = pc[o[0]] ? pa[o[1]] : pb[o[2]]; });
        });
        return std::vector<Tensor>{out};
    });
    return s;
}

OpSchema clamp() {
    auto make = [](const Node& n, const std::vector<Tensor>&) {
        const double lo = n.attr<double>("min"), hi = n.attr<double>("max");
        return [lo, hi](auto x) {
            using T = decltype(x);
            // integer data: min rounds up and max rounds down (Clamp-1 spec)
            const T l = std::is_integral_v<T> ? saturate_cast<T>(std::ceil(lo)) : static_cast<T>(lo);
            const T h = std::is_integral_v<T> ? saturate_cast<T>(std::floor(hi)) : static_cast<T>(hi);
            return std::min(std::max(x, l), h);
        };
    };
    OpSchema s = unary("Clamp", "opset1", Accepts::Numeric, make, false,
                       {{"min", AttrKind::Float, {}}, {"max", AttrKind::Float, {}}});
    auto base = s.infer;
    s.infer = [base](InferContext& c) {
        if (c.attr<double>("min") > c.attr<double>("max"))
            c.fail("min is greater than max", "swap the bounds");
        base(c);
    };
    return s;
}

// Adds a check that string attribute `name` is one of `allowed` to the schema's inference.
OpSchema with_enum(OpSchema s, std::string name, std::vector<std::string> allowed) {
    s.infer = [base = s.infer, name, allowed](InferContext& c) {
        const auto value = c.attr<std::string>(name);
        if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
            std::string list;
            for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
            c.fail(name + " '" + value + "' is not supported", "use one of: " + list);
        }
        base(c);
    };
    return s;
}

// Unary ops applied to the element type directly (integers stay integers).
void register_exact_unary_ops(OpRegistry& r) {
    using A = Accepts;
    r.add(unary("Abs", "opset1", A::Numeric, plain([](auto x) { return is_negative(x) ? wrapping_sub(decltype(x)(0), x) : x; }), false));
    r.add(unary("Negative", "opset1", A::Numeric, plain([](auto x) { return wrapping_sub(decltype(x)(0), x); }), false));
    r.add(unary("Sign", "opset1", A::Numeric, plain([](auto x) {
        using T = decltype(x);
        return is_negative(x) ? T(-1) : x > T(0) ? T(1) : T(0);
    }), false));
    r.add(unary("Ceiling", "opset1", A::Numeric, plain([](auto x) {
        if constexpr (std::is_floating_point_v<decltype(x)>) return std::ceil(x); else return x;
    }), false));
    r.add(unary("Floor", "opset1", A::Numeric, plain([](auto x) {
        if constexpr (std::is_floating_point_v<decltype(x)>) return std::floor(x); else return x;
    }), false));
    r.add(unary("Relu", "opset1", A::Numeric, plain([](auto x) { return is_negative(x) ? decltype(x)(0) : x; }), false));
    r.add(unary("LogicalNot", "opset1", A::Boolean, plain([](auto x) { return x ? 0 : 1; }), false));
    r.add(with_enum(unary("Round", "opset5", A::Numeric, [](const Node& n, const std::vector<Tensor>&) {
        const bool to_even = n.attr<std::string>("mode") == "half_to_even";
        return [to_even](auto x) {
            if constexpr (std::is_floating_point_v<decltype(x)>) return to_even ? std::nearbyint(x) : std::round(x);
            else return x;
        };
    }, false, {{"mode", AttrKind::String, std::string("half_to_even")}}), "mode", {"half_to_even", "half_away_from_zero"}));
    r.add(clamp());
}

// Unary functions of reals: computed in double, stored in the element type.
void register_real_unary_ops(OpRegistry& r) {
    using A = Accepts;
    auto real = [&](const char* type, const char* version, A acc, auto f) {
        r.add(unary(type, version, acc, plain(f), true));
    };
    real("Acos", "opset1", A::Numeric, [](auto x) { return std::acos(x); });
    real("Acosh", "opset4", A::Numeric, [](auto x) { return std::acosh(x); });
    real("Asin", "opset1", A::Numeric, [](auto x) { return std::asin(x); });
    real("Asinh", "opset4", A::Numeric, [](auto x) { return std::asinh(x); });
    real("Atan", "opset1", A::Numeric, [](auto x) { return std::atan(x); });
    real("Atanh", "opset4", A::Numeric, [](auto x) { return std::atanh(x); });
    real("Cos", "opset1", A::Numeric, [](auto x) { return std::cos(x); });
    real("Cosh", "opset1", A::Numeric, [](auto x) { return std::cosh(x); });
    real("Erf", "opset1", A::Numeric, [](auto x) { return std::erf(x); });
    real("Exp", "opset1", A::Numeric, [](auto x) { return std::exp(x); });
    real("Log", "opset1", A::Numeric, [](auto x) { return std::log(x); });
    real("Sigmoid", "opset1", A::Numeric, [](auto x) { return sigmoid(x); });
    real("Sin", "opset1", A::Numeric, [](auto x) { return std::sin(x); });
    real("Sinh", "opset1", A::Numeric, [](auto x) { return std::sinh(x); });
    real("Sqrt", "opset1", A::Numeric, [](auto x) { return std::sqrt(x); });
    real("Tan", "opset1", A::Numeric, [](auto x) { return std::tan(x); });
    real("Tanh", "opset1", A::Numeric, [](auto x) { return std::tanh(x); });
    real("HSigmoid", "opset5", A::Float, [](auto x) { return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; });
    real("HSwish", "opset4", A::Float, [](auto x) { return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; });
    real("Mish", "opset4", A::Float, [](auto x) { return x * std::tanh(softplus(x)); });
    real("SoftPlus", "opset4", A::Float, [](auto x) { return softplus(x); });
}

// Activations with attributes or parameter inputs, PRelu and Convert.
void register_parametric_unary_ops(OpRegistry& r) {
    using A = Accepts;
    r.add(unary("Elu", "opset1", A::Float, [](const Node& n, const std::vector<Tensor>&) {
        const double alpha = n.attr<double>("alpha");
        return [alpha](auto x) { return x >= 0 ? double(x) : alpha * (std::exp(double(x)) - 1.0); };
    }, true, {{"alpha", AttrKind::Float, {}}}));
    // the runtime's EnumNames table is upper-case (ERF/TANH); the spec text writes erf/tanh
    r.add(with_enum(unary("Gelu", "opset7", A::Float, [](const Node& n, const std::vector<Tensor>&) {
        const std::string mode = n.attr<std::string>("approximation_mode");
        if (mode != "ERF" && mode != "TANH" && mode != "erf" && mode != "tanh")
            throw Error("unknown approximation_mode '" + mode + "'", n.describe(), "use ERF or TANH");
        const bool tanh_mode = mode == "TANH" || mode == "tanh";
        return [tanh_mode](auto v) {
            const double x = v;
            if (tanh_mode)
                return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
            return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
        };
    }, true, {{"approximation_mode", AttrKind::String, std::string("ERF")}}), "approximation_mode",
                    {"ERF", "TANH", "erf", "tanh"}));
    r.add(unary("Swish", "opset4", A::Float, [](const Node&, const std::vector<Tensor>& in) {
        const double beta = param(in, 1, 1.0);
        return [beta](auto x) { return double(x) * sigmoid(beta * double(x)); };
    }, true, {}, 1, 0));
    r.add(unary("HardSigmoid", "opset1", A::Float, [](const Node&, const std::vector<Tensor>& in) {
        const double alpha = param(in, 1, 0.0), beta = param(in, 2, 0.0);
        return [alpha, beta](auto x) { return std::max(0.0, std::min(1.0, alpha * double(x) + beta)); };
    }, true, {}, 2));
    r.add(unary("Selu", "opset1", A::Float, [](const Node&, const std::vector<Tensor>& in) {
        const double alpha = param(in, 1, 0.0), lambda = param(in, 2, 0.0);
        return [alpha, lambda](auto v) {
            const double x = v;
            return lambda * (x > 0 ? x : alpha * (std::exp(x) - 1.0));
        };
    }, true, {}, 2));
    r.add(prelu());
    r.add(convert());
}

// Binary ops with numpy broadcasting: arithmetic, comparison, logical; Select and the shifts.
void register_binary_ops(OpRegistry& r) {
    using K = BinaryKind;
    r.add(binary("Add", K::Arithmetic, plain_binary([](auto a, auto b) { return wrapping_add(a, b); })));
    r.add(binary("Subtract", K::Arithmetic, plain_binary([](auto a, auto b) { return wrapping_sub(a, b); })));
    r.add(binary("Multiply", K::Arithmetic, plain_binary([](auto a, auto b) { return wrapping_mul(a, b); })));
    r.add(binary("Divide", K::Arithmetic, [](const Node& n) {
        const bool python_div = n.attr<bool>("m_pythondiv");
        return [&n, python_div](auto a, auto b) { return divide(n, a, b, python_div); };
    }, {{"m_pythondiv", AttrKind::Bool, true}}));
    r.add(binary("Power", K::Arithmetic, plain_binary([](auto a, auto b) { return power(a, b); })));
    r.add(binary("Maximum", K::Arithmetic, plain_binary([](auto a, auto b) { return std::max(a, b); })));
    r.add(binary("Minimum", K::Arithmetic, plain_binary([](auto a, auto b) { return std::min(a, b); })));
    r.add(binary("SquaredDifference", K::Arithmetic, plain_binary([](auto a, auto b) {
        const auto d = wrapping_sub(a, b);
        return wrapping_mul(d, d);
    })));
    r.add(binary("FloorMod", K::Arithmetic, [](const Node& n) {
        return [&n](auto a, auto b) { return remainder(n, a, b, true); };
    }));
    r.add(binary("Mod", K::Arithmetic, [](const Node& n) {
        return [&n](auto a, auto b) { return remainder(n, a, b, false); };
    }));
    r.add(binary("Equal", K::Comparison, plain_binary([](auto a, auto b) { return a == b; })));
    r.add(binary("NotEqual", K::Comparison, plain_binary([](auto a, auto b) { return a != b; })));
    r.add(binary("Less", K::Comparison, plain_binary([](auto a, auto b) { return a < b; })));
    r.add(binary("LessEqual", K::Comparison, plain_binary([](auto a, auto b) { return a <= b; })));
    r.add(binary("Greater", K::Comparison, plain_binary([](auto a, auto b) { return a > b; })));
    r.add(binary("GreaterEqual", K::Comparison, plain_binary([](auto a, auto b) { return a >= b; })));
    r.add(binary("LogicalAnd", K::Logical, plain_binary([](auto a, auto b) { return a && b; })));
    r.add(binary("LogicalOr", K::Logical, plain_binary([](auto a, auto b) { return a || b; })));
    r.add(binary("LogicalXor", K::Logical, plain_binary([](auto a, auto b) { return bool(a) != bool(b); })));
    r.add(select());
    r.add(fake_quantize());
    r.add(bitwise_shift("BitwiseLeftShift", true));
    r.add(bitwise_shift("BitwiseRightShift", false));
}

}  // namespace

void register_eltwise_ops(OpRegistry& r) {
    register_exact_unary_ops(r);
    register_real_unary_ops(r);
    register_parametric_unary_ops(r);
    register_binary_ops(r);
}

}  // namespace mo
