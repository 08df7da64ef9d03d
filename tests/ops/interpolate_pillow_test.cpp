// Interpolate-11 bilinear_pillow / bicubic_pillow against Pillow 9.4 resizes
// (data/interpolate_pillow_cases.txt, written by data/make_interpolate_pillow_fixtures.py).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "support/op_test_util.hpp"

namespace mo {
namespace {

using Ints = std::vector<int64_t>;

// One block of the fixture file: "key values..." lines after a "case NAME" line.
struct PillowCase {
    std::string name;
    std::map<std::string, std::vector<std::string>> fields;

    const std::string& word(const std::string& key) const { return fields.at(key).at(0); }
    template <typename T>
    std::vector<T> numbers(const std::string& key) const {
        std::vector<T> out;
        for (const auto& s : fields.at(key)) out.push_back(static_cast<T>(std::stod(s)));
        return out;
    }
};

std::vector<PillowCase> load_cases() {
    std::ifstream file(std::string(MO_SOURCE_DIR) + "/tests/ops/data/interpolate_pillow_cases.txt");
    EXPECT_TRUE(file) << "missing interpolate_pillow_cases.txt";
    std::vector<PillowCase> cases;
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        std::string key, value;
        in >> key;
        std::vector<std::string> values;
        while (in >> value) values.push_back(value);
        if (key == "case") cases.push_back({values.at(0), {}});
        else cases.back().fields[key] = values;
    }
    return cases;
}

Shape to_shape(const Ints& v) { return Shape(v.begin(), v.end()); }

// The attributes that give Pillow's resize per the Interpolate-11 spec: only cube_coeff must
// be set (Pillow's bicubic a = -0.5); the transform mode and antialias are ignored.
AttrMap pillow_attrs(const PillowCase& c) {
    return {{"mode", c.word("mode")}, {"shape_calculation_mode", c.word("calc")}, {"cube_coeff", -0.5},
            {"pads_begin", c.numbers<int64_t>("pads_begin")}, {"pads_end", c.numbers<int64_t>("pads_end")}};
}

Tensor run_case(const PillowCase& c, const AttrMap& attrs) {
    const Shape shape = to_shape(c.numbers<int64_t>("shape"));
    Tensor data = c.word("type") == "u8" ? Tensor::from_vector<uint8_t>(c.numbers<uint8_t>("input"), shape)
                                         : Tensor::from_vector<float>(c.numbers<float>("input"), shape);
    const auto n_axes = static_cast<int64_t>(c.fields.at("target").size());
    Tensor target = c.word("calc") == "sizes" ? Tensor::from_vector<int64_t>(c.numbers<int64_t>("target"), {n_axes})
                                              : Tensor::from_vector<float>(c.numbers<float>("target"), {n_axes});
    std::vector<Tensor> inputs{data, target};
    if (c.word("axes") != "none") inputs.push_back(Tensor::from_vector<int64_t>(c.numbers<int64_t>("axes"), {n_axes}));
    return test::run_op("Interpolate", inputs, attrs).at(0);
}

void expect_matches_pillow(const PillowCase& c, const Tensor& out) {
    ASSERT_EQ(out.shape(), to_shape(c.numbers<int64_t>("output_shape")));
    if (c.word("type") == "u8") {
        // `output` rounds each pass the OpenVINO way; Pillow's "L" mode uses fixed-point
        // weights, so it may differ by one where a value is (nearly) x.5.
        const auto got = test::values<uint8_t>(out);
        EXPECT_EQ(got, c.numbers<uint8_t>("output"));
        const auto pillow_l = c.numbers<uint8_t>("pillow_l_output");
        ASSERT_EQ(got.size(), pillow_l.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::abs(got[i] - pillow_l[i]), 1) << "at " << i;
        return;
    }
    const auto want = c.numbers<float>("output");
    const auto got = test::values<float>(out);
    ASSERT_EQ(got.size(), want.size());
    // Same weights, order and f32 intermediate as Pillow: only a few ulps of slack.
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-6f * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
}

TEST(InterpolatePillow, MatchesPillowResizes) {
    const auto cases = load_cases();
    ASSERT_EQ(cases.size(), 12u);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        expect_matches_pillow(c, run_case(c, pillow_attrs(c)));
    }
}

TEST(InterpolatePillow, IgnoresCoordinateTransformAndAntialias) {
    for (const auto& c : load_cases()) {
        SCOPED_TRACE(c.name);
        AttrMap a = pillow_attrs(c);
        a["coordinate_transformation_mode"] = std::string("align_corners");
        a["antialias"] = true;
        a["nearest_mode"] = std::string("ceil");
        expect_matches_pillow(c, run_case(c, a));
    }
}

// [1, 2] widened to 4 along W; only the bicubic taps at distances 0.25 and 1.25 (or 0.75 and
// 0.25) fall inside. Weights f(d) = ((a+2)d - (a+3))d^2 + 1 for d < 1, (((d-5)d + 8)d - 4)a
// for 1 <= d < 2, normalised. a = -0.75: f(.25) = 225/256, f(1.25) = -27/256, f(.75) = 67/256,
// so out[0] = (225 - 54) / 198 = 19/22 and out[1] = (225 + 134) / 292; the rest mirror (sum 3).
TEST(InterpolatePillow, BicubicUsesCubeCoeff) {
    auto run = [](double a) {
        AttrMap attrs{{"mode", std::string("bicubic_pillow")}, {"shape_calculation_mode", std::string("sizes")}};
        if (!std::isnan(a)) attrs["cube_coeff"] = a;
        Tensor out = test::run_op("Interpolate",
                                  {Tensor::from_vector<float>({1, 2}, {1, 1, 1, 2}), Tensor::from_vector<int64_t>({1, 4}, {2}),
                                   Tensor::from_vector<int64_t>({2, 3}, {2})},
                                  attrs)[0];
        EXPECT_EQ(out.shape(), (Shape{1, 1, 1, 4}));
        return test::values<float>(out);
    };
    const auto got = run(NAN);  // the default, -0.75
    const std::vector<float> want{19.f / 22, 359.f / 292, 3 - 359.f / 292, 3 - 19.f / 22};
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << "at " << i;
    // a = -0.5: f(.25) = 222/256, f(1.25) = -18/256, out[0] = (222 - 36) / 204 = 31/34.
    EXPECT_NEAR(run(-0.5)[0], 31.f / 34, 1e-6f);
}

// i8 is rounded half away from zero and clipped after each pass: [-128, 127] widened 2 -> 3
// with the triangle gives -128, (-128 + 127) / 2 = -0.5 -> -1, 127.
TEST(InterpolatePillow, IntegerRoundsHalfAwayFromZero) {
    AttrMap attrs{{"mode", std::string("bilinear_pillow")}, {"shape_calculation_mode", std::string("sizes")}};
    Tensor out = test::run_op("Interpolate",
                              {Tensor::from_vector<int8_t>({-128, 127}, {1, 2}), Tensor::from_vector<int64_t>({1, 3}, {2}),
                               Tensor::from_vector<int64_t>({0, 1}, {2})},
                              attrs)[0];
    EXPECT_EQ(test::values<int8_t>(out), (std::vector<int8_t>{-128, -1, 127}));
}

TEST(InterpolatePillow, OnlyTwoIncreasingAxes) {
    const Tensor x = Tensor::from_vector<float>(test::iota(16), {1, 1, 4, 4});
    auto expect_error = [&](const std::string& mode, std::vector<Tensor> inputs) {
        inputs.insert(inputs.begin(), x);
        AttrMap attrs{{"mode", mode}, {"shape_calculation_mode", std::string("sizes")}};
        try {
            test::run_op("Interpolate", inputs, attrs);
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_NE(e.what_part().find("exactly two axes (H, W) in increasing order"), std::string::npos) << e.what();
            EXPECT_NE(e.hint().find("[2, 3] for NCHW"), std::string::npos);
        }
    };
    auto i64 = [](Ints v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); };
    expect_error("bilinear_pillow", {i64({1, 2, 2}), i64({1, 2, 3})});  // three axes
    expect_error("bicubic_pillow", {i64({2}), i64({3})});              // one axis
    expect_error("bilinear_pillow", {i64({2, 2}), i64({3, 2})});        // W before H
    expect_error("bicubic_pillow", {i64({1, 1, 2, 2})});                // no axes input: all four
}

}  // namespace
}  // namespace mo
