// run_model(): input binding from .npy files (by position and by name) or random data,
// outputs written as .npy, comparison with reference files.
#include "validate/runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "support/op_test_util.hpp"
#include "validate/npy.hpp"
#include "validate/random_inputs.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using test::values;

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    fs::path dir = fs::path(test::onnx_temp_path("runner")) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string save(const fs::path& dir, const std::string& file, const Tensor& t) {
    std::string path = (dir / file).string();
    write_npy(path, t);
    return path;
}

// y = a - b, with tensor names "a", "b" and "y/out" (a '/' to exercise file naming).
std::unique_ptr<Graph> subtract_graph() {
    GraphBuilder b;
    auto a = b.input(ElementType::f32, {2}, "a");
    auto c = b.input(ElementType::f32, {2}, "b");
    auto y = b.op("Subtract", {a, c});
    y.names().push_back("y/out");
    b.output(y);
    return b.release();
}

TEST(Runner, BindsFilesByPositionAndByName) {
    auto g = subtract_graph();
    auto dir = scratch("bind");
    const std::string fa = save(dir, "a.npy", Tensor::from_vector<float>({10, 20}, {2}));
    const std::string fb = save(dir, "b.npy", Tensor::from_vector<float>({1, 2}, {2}));
    RunOptions by_position;
    by_position.input_files = {fa, fb};
    EXPECT_EQ(values<float>(run_model(*g, by_position).outputs[0]), (std::vector<float>{9, 18}));
    RunOptions by_name;
    by_name.input_files = {"b=" + fa, "a=" + fb};  // swapped on purpose
    auto r = run_model(*g, by_name);
    EXPECT_EQ(values<float>(r.outputs[0]), (std::vector<float>{-9, -18}));
    EXPECT_EQ(r.output_names, (std::vector<std::string>{"y/out"}));
}

TEST(Runner, UnboundInputsGetSeededRandomData) {
    auto g = subtract_graph();
    auto dir = scratch("random");
    RunOptions o;
    o.seed = 9;
    o.input_files = {"b=" + save(dir, "zeros.npy", Tensor::from_vector<float>({0, 0}, {2}))};
    auto r = run_model(*g, o);
    // a - 0 = a, and a is what random_inputs() gives parameter 0 for this seed.
    EXPECT_TRUE(r.inputs[0].same_as(random_inputs(*g, 9)[0]));
    EXPECT_TRUE(r.outputs[0].same_as(r.inputs[0]));
}

TEST(Runner, WritesOutputsAndComparesWithReferences) {
    auto g = subtract_graph();
    auto dir = scratch("outputs");
    RunOptions o;
    o.input_files = {save(dir, "a.npy", Tensor::from_vector<float>({1, 1}, {2})),
                     save(dir, "b.npy", Tensor::from_vector<float>({0.5f, 3}, {2}))};
    o.output_dir = (dir / "out").string();
    o.reference_files = {save(dir, "ref.npy", Tensor::from_vector<float>({0.5f, -2}, {2}))};
    auto r = run_model(*g, o);
    ASSERT_EQ(r.written_files, (std::vector<std::string>{(dir / "out" / "y_out.npy").string()}));
    EXPECT_EQ(values<float>(read_npy(r.written_files[0])), (std::vector<float>{0.5f, -2}));
    ASSERT_TRUE(r.report);
    EXPECT_TRUE(r.report->ok()) << r.report->text();

    o.reference_files = {save(dir, "wrong.npy", Tensor::from_vector<float>({0.5f, 2}, {2}))};
    auto bad = run_model(*g, o);
    EXPECT_FALSE(bad.report->ok());
    EXPECT_EQ(bad.report->outputs[0].mismatches, 1u);
    EXPECT_EQ(bad.report->outputs[0].first_mismatch, 1u);
}

TEST(Runner, BindingErrorsNameTheProblem) {
    auto g = subtract_graph();
    auto dir = scratch("errors");
    const std::string f = save(dir, "a.npy", Tensor::from_vector<float>({1, 2}, {2}));
    auto run_with = [&](std::vector<std::string> files, std::vector<std::string> refs = {}) {
        RunOptions o;
        o.input_files = std::move(files);
        o.reference_files = std::move(refs);
        return run_model(*g, o);
    };
    EXPECT_THROW(run_with({f, f, f}), Error);           // more files than inputs
    EXPECT_THROW(run_with({"nope=" + f}), Error);       // unknown name
    EXPECT_THROW(run_with({f, "a=" + f}), Error);       // a bound twice
    EXPECT_THROW(run_with({(dir / "missing.npy").string()}), Error);
    EXPECT_THROW(run_with({f, f}, {f, f}), Error);      // two references for one output
    try {
        run_with({"nope=" + f});
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mo
