// The conformance runner on real ONNX backend tests (skipped without libonnx-testdata) and on
// test directories built here: a wrong reference, an unknown op, the expected-list verdict.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "conformance/conformance.hpp"
#include "emit/ir_test_util.hpp"
#include "support/onnx_model_builder.hpp"

namespace fs = std::filesystem;
using namespace mo::conformance;

namespace {

const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

#define SKIP_WITHOUT_TESTDATA() \
    if (!fs::is_directory(kNodeTests)) GTEST_SKIP() << "libonnx-testdata is not installed (" << kNodeTests << ")"

template <typename Message>
void write_proto(const fs::path& path, const Message& m) {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
}

onnx::TensorProto float_tensor(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t.add_dims(d);
    for (float v : values) t.add_float_data(v);
    return t;
}

// A one-node model y = op(x) on a [2] float tensor, with one data set.
void write_single_op_test(const fs::path& dir, const std::string& op, std::vector<float> x, std::vector<float> y) {
    fs::create_directories(dir / "test_data_set_0");
    mo::test::OnnxModelBuilder m(13);
    m.input("x", {2});
    m.node(op, {"x"}, {"y"});
    m.output("y");
    write_proto(dir / "model.onnx", m.model());
    write_proto(dir / "test_data_set_0" / "input_0.pb", float_tensor("x", {2}, x));
    write_proto(dir / "test_data_set_0" / "output_0.pb", float_tensor("y", {2}, y));
}

}  // namespace

TEST(Conformance, RealNodeTestsPass) {
    SKIP_WITHOUT_TESTDATA();
    for (const char* name : {"test_relu", "test_add_bcast", "test_sigmoid"}) {
        TestResult r = run_test((kNodeTests / name).string());
        EXPECT_EQ(r.status, Status::passed) << name << ": " << r.message;
        EXPECT_EQ(r.name, name);
    }
    TestResult add = run_test((kNodeTests / "test_add_bcast").string());
    EXPECT_EQ(add.op_types, std::vector<std::string>{"Add"});
}

TEST(Conformance, ForkedRunMatchesInProcessAndCountsTotals) {
    SKIP_WITHOUT_TESTDATA();
    auto tests = find_tests(kNodeTests.string(), "test_relu");
    ASSERT_FALSE(tests.empty());
    EXPECT_EQ(fs::path(tests.front()).filename(), "test_relu");
    auto results = run_tests({(kNodeTests / "test_relu").string(), (kNodeTests / "test_abs").string()},
                             RunConfig{.jobs = 2});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].name, "test_relu");
    EXPECT_EQ(results[0].status, Status::passed) << results[0].message;
    EXPECT_EQ(results[1].status, Status::passed) << results[1].message;
    EXPECT_EQ(total_line(results), "2 passed, 0 failed, 0 skipped");
}

TEST(Conformance, WrongReferenceOutputFails) {
    mo::test::ScratchDir tmp{"conformance"};
    // relu([-1, 2]) is [0, 2]; the reference claims [0, 3].
    write_single_op_test(tmp.path() / "test_wrong_relu", "Relu", {-1.f, 2.f}, {0.f, 3.f});
    TestResult r = run_test((tmp.path() / "test_wrong_relu").string());
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_NE(r.message.find("output_0.pb"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find('\n'), std::string::npos);

    // The same model with the right reference passes, so the failure above is the reference's.
    write_single_op_test(tmp.path() / "test_right_relu", "Relu", {-1.f, 2.f}, {0.f, 2.f});
    TestResult ok = run_test((tmp.path() / "test_right_relu").string());
    EXPECT_EQ(ok.status, Status::passed) << ok.message;
}

TEST(Conformance, CorrectedDataReplacesTheTestsOwnFile) {
    mo::test::ScratchDir tmp{"conformance"};
    // The test's own reference is wrong; the fixes directory holds the right output_0.pb.
    write_single_op_test(tmp.path() / "test_fixed_relu", "Relu", {-1.f, 2.f}, {0.f, 3.f});
    write_single_op_test(tmp.path() / "fixes_source", "Relu", {-1.f, 2.f}, {0.f, 2.f});
    fs::path fixes = tmp.path() / "fixes";
    fs::create_directories(fixes / "test_fixed_relu" / "test_data_set_0");
    fs::copy_file(tmp.path() / "fixes_source" / "test_data_set_0" / "output_0.pb",
                  fixes / "test_fixed_relu" / "test_data_set_0" / "output_0.pb");
    std::string test = (tmp.path() / "test_fixed_relu").string();

    TestResult own = run_test(test);
    EXPECT_EQ(own.status, Status::failed);
    EXPECT_FALSE(own.corrected_data);
    auto fixed = run_tests({test}, RunConfig{.fixes_dir = fixes.string()});
    ASSERT_EQ(fixed.size(), 1u);
    EXPECT_EQ(fixed[0].status, Status::passed) << fixed[0].message;
    EXPECT_TRUE(fixed[0].corrected_data);
    EXPECT_NE(summary(fixed).find("ran with corrected test data"), std::string::npos);
}

// The committed bf16 fix holds round-to-nearest-even of the test's inputs, worked by hand from
// their f32 bit patterns (ONNX 1.12's own file truncates: 0x3ef5eeb0 -> 0x3ef5).
TEST(Conformance, Bf16FixRoundsToNearestEven) {
    fs::path file = fs::path(MO_SOURCE_DIR) / "conformance/testdata_fixes/test_cast_FLOAT_to_BFLOAT16/test_data_set_0/output_0.pb";
    onnx::TensorProto t;
    std::ifstream in(file, std::ios::binary);
    ASSERT_TRUE(t.ParseFromIstream(&in)) << file;
    ASSERT_EQ(t.raw_data().size(), 24u);
    std::vector<uint16_t> bits(12);
    std::memcpy(bits.data(), t.raw_data().data(), 24);
    // 0.47892547 = 0x3ef535b8 (down), 0.48033667 = 0x3ef5eeb0 (up), 0.49968487 = 0x3effd6b2 (up,
    // carries into the exponent), 0.81910545 = 0x3f51b0e5 (up), 0.47031248 = 0x3ef0cccc (up),
    // 0.816468 = 0x3f51040c (down), 0.21087195 = 0x3e57eed1 (up), 0.7229038 = 0x3f391039 (down).
    std::vector<uint16_t> finite(bits.begin(), bits.begin() + 8);
    EXPECT_EQ(finite, (std::vector<uint16_t>{0x3ef5, 0x3ef6, 0x3f00, 0x3f52, 0x3ef1, 0x3f51, 0x3e58, 0x3f39}));
    EXPECT_EQ(bits[8] & 0x7f80, 0x7f80);  // NaN stays NaN
    EXPECT_NE(bits[8] & 0x007f, 0);
    EXPECT_EQ(bits[9], 0x7f80);   // inf
    EXPECT_EQ(bits[10], 0x7f80);  // +inf
    EXPECT_EQ(bits[11], 0xff80);  // -inf
}

TEST(Conformance, UnknownOpIsUnsupported) {
    mo::test::ScratchDir tmp{"conformance"};
    write_single_op_test(tmp.path() / "test_nosuchop", "NoSuchOp", {1.f, 2.f}, {1.f, 2.f});
    auto results = run_tests({(tmp.path() / "test_nosuchop").string()});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::unsupported);
    EXPECT_NE(results[0].message.find("NoSuchOp"), std::string::npos) << results[0].message;
    EXPECT_EQ(results[0].op_types, std::vector<std::string>{"NoSuchOp"});
    EXPECT_EQ(total_line(results), "0 passed, 0 failed, 1 skipped");
}

TEST(Conformance, MissingModelFileIsAFailureNotACrash) {
    mo::test::ScratchDir tmp{"conformance"};
    fs::create_directories(tmp.path() / "test_broken");
    std::ofstream(tmp.path() / "test_broken" / "model.onnx") << "not a protobuf \xff\xff\xff";
    auto results = run_tests({(tmp.path() / "test_broken").string()});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_FALSE(results[0].message.empty());
}

TEST(Conformance, ExpectedListVerdict) {
    mo::test::ScratchDir tmp{"conformance"};
    std::ofstream(tmp.path() / "expected.txt") << "# header comment\n\ntest_a  # BUG: wrong rounding\ntest_b\n";
    auto expected = read_expected((tmp.path() / "expected.txt").string());
    ASSERT_EQ(expected.size(), 2u);
    EXPECT_EQ(expected.at("test_a"), "BUG: wrong rounding");
    EXPECT_EQ(expected.at("test_b"), "");

    auto result = [](std::string name, Status s) {
        TestResult r;
        r.name = std::move(name);
        r.status = s;
        return r;
    };
    // Listed failures only: exit 0.
    Verdict listed = judge({result("test_a", Status::failed), result("test_b", Status::unsupported),
                            result("test_c", Status::passed)},
                           expected);
    EXPECT_EQ(listed.exit_code(), 0);
    EXPECT_TRUE(listed.unexpected.empty());
    EXPECT_TRUE(listed.now_passing.empty());

    // A new failure: exit 1, named. A listed test passing: reported, not fatal.
    Verdict fresh = judge({result("test_a", Status::passed), result("test_c", Status::failed)}, expected);
    EXPECT_EQ(fresh.exit_code(), 1);
    EXPECT_EQ(fresh.unexpected, std::vector<std::string>{"test_c"});
    EXPECT_EQ(fresh.now_passing, std::vector<std::string>{"test_a"});

    Verdict only_passing = judge({result("test_a", Status::passed)}, expected);
    EXPECT_EQ(only_passing.exit_code(), 0);
    EXPECT_EQ(only_passing.now_passing, std::vector<std::string>{"test_a"});
}

TEST(Conformance, SummaryCountsPerOpAndEndsWithTotal) {
    auto result = [](std::string name, std::vector<std::string> ops, Status s, std::string msg = {}) {
        TestResult r;
        r.name = std::move(name);
        r.op_types = std::move(ops);
        r.status = s;
        r.message = std::move(msg);
        return r;
    };
    std::string text = summary({result("t1", {"Relu"}, Status::passed), result("t2", {"Relu"}, Status::failed, "boom"),
                                result("t3", {"Foo"}, Status::unsupported, "Foo is not supported")});
    EXPECT_NE(text.find("Relu             1       1            0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("Foo              0       0            1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  t2: boom\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("t3:"), std::string::npos) << text;
    EXPECT_TRUE(text.ends_with("\n1 passed, 1 failed, 1 skipped\n")) << text;
}

TEST(Conformance, ExpectedListMissingFileIsAnError) {
    EXPECT_THROW(read_expected("/nonexistent/expected.txt"), std::exception);
}

TEST(Conformance, ModelWithoutDataSetFailsInItsOwnProcess) {
    mo::test::ScratchDir tmp{"conformance"};
    write_single_op_test(tmp.path() / "test_no_data", "Relu", {1.f, 2.f}, {1.f, 2.f});
    fs::remove_all(tmp.path() / "test_no_data" / "test_data_set_0");
    auto results = run_tests({(tmp.path() / "test_no_data").string()});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_NE(results[0].message.find("test_data_set"), std::string::npos) << results[0].message;
}

TEST(Conformance, InputsBindByTensorProtoName) {
    mo::test::ScratchDir tmp{"conformance"};
    fs::path dir = tmp.path() / "test_sub_named";
    fs::create_directories(dir / "test_data_set_0");
    mo::test::OnnxModelBuilder m(13);
    m.input("a", {2});
    m.input("b", {2});
    m.node("Sub", {"a", "b"}, {"y"});
    m.output("y");
    write_proto(dir / "model.onnx", m.model());
    // The files are in the opposite order of the graph inputs; their names decide: a - b.
    write_proto(dir / "test_data_set_0" / "input_0.pb", float_tensor("b", {2}, {1.f, 2.f}));
    write_proto(dir / "test_data_set_0" / "input_1.pb", float_tensor("a", {2}, {10.f, 20.f}));
    write_proto(dir / "test_data_set_0" / "output_0.pb", float_tensor("y", {2}, {9.f, 18.f}));
    TestResult r = run_test(dir.string());
    EXPECT_EQ(r.status, Status::passed) << r.message;
}
