#include "loaders/onnx/onnx_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/mapped_file.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"

namespace mo {
namespace {

using test::builtin_ops;
using test::OnnxModelBuilder;

std::unique_ptr<Graph> load(const std::string& path, const ConversionOptions& options = {}) {
    return load_onnx(path, options, builtin_ops());
}

std::string error_of(const std::string& path, const ConversionOptions& options = {}) {
    try {
        load(path, options);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// x[N,3,?] + w (initializer) -> Relu -> y
OnnxModelBuilder add_relu_model() {
    OnnxModelBuilder m(13);
    m.input("x", {"N", 3, -1});
    m.initializer("w", {1.f, 2.f, 3.f}, {3, 1});
    m.node("Add", {"x", "w"}, {"s"}, {}, "add");
    m.node("Relu", {"s"}, {"y"});
    m.output("y");
    return m;
}

TEST(OnnxLoader, GraphInputsBecomeParametersWithDynamicDims) {
    OnnxModelBuilder m(13);
    m.input("x", {"N", 3, -1});
    m.input("ids", {2}, onnx::TensorProto::INT64);
    m.input_any_rank("z");
    m.initializer("w", {1.f}, {1});
    m.model().mutable_graph()->add_input()->set_name("w");  // an initializer listed as input
    m.node("Sum", {"x", "z", "w"}, {"y"});
    m.node("Identity", {"ids"}, {"ids_out"});
    m.output("y");
    m.output("ids_out", onnx::TensorProto::INT64);
    auto g = load(m.save("params.onnx"));
    ASSERT_EQ(g->parameters().size(), 3u);
    Node x = g->parameters()[0], ids = g->parameters()[1], z = g->parameters()[2];
    EXPECT_EQ(x.name(), "x");
    EXPECT_EQ(x.out(0).names(), std::vector<std::string>{"x"});
    EXPECT_EQ(x.out(0).type(), ElementType::f32);
    EXPECT_EQ(x.out(0).shape(), (PartialShape{Dimension(), 3, Dimension()}));
    EXPECT_EQ(x.attr<PartialShape>("shape"), (PartialShape{Dimension(), 3, Dimension()}));
    EXPECT_EQ(ids.attr<ElementType>("element_type"), ElementType::i64);
    EXPECT_EQ(ids.out(0).shape(), (PartialShape{2}));
    EXPECT_FALSE(z.out(0).shape().rank_is_static());
    EXPECT_EQ(g->source_framework, "onnx");
}

TEST(OnnxLoader, NodesAreFrameworkNodesConnectedByTensorName) {
    auto m = add_relu_model();
    auto g = load(m.save("add_relu.onnx"));
    Node add = g->find_by_name("add");
    ASSERT_TRUE(add);
    EXPECT_TRUE(add.is("FrameworkNode"));
    EXPECT_EQ(add.framework().framework, "onnx");
    EXPECT_EQ(add.framework().type, "Add");
    EXPECT_EQ(add.framework().domain, "");
    EXPECT_EQ(add.framework().opset, 13);
    EXPECT_EQ(add.framework().attributes, nullptr);  // Add has none
    EXPECT_EQ(add.in(0).src(), g->parameters()[0].out(0));
    Node w = add.in(1).src().node();
    EXPECT_TRUE(w.is("Constant"));
    EXPECT_EQ(w.out(0).names(), std::vector<std::string>{"w"});
    EXPECT_EQ(add.out(0).names(), std::vector<std::string>{"s"});
    // The unnamed Relu gets a generated name; the Result consumes its output.
    ASSERT_EQ(g->results().size(), 1u);
    Node relu = g->results()[0].in(0).src().node();
    EXPECT_EQ(relu.framework().type, "Relu");
    EXPECT_EQ(relu.name(), "Relu_1");
    EXPECT_EQ(relu.in(0).src(), add.out(0));
    EXPECT_EQ(relu.out(0).names(), std::vector<std::string>{"y"});
}

// A weight (above 64 KiB) stays a view of the mapped file wherever it lies; a small tensor is
// a view when its bytes are aligned for its type, else an aligned copy (values read through
// data<T>() must not be misaligned).
TEST(OnnxLoader, RawInitializerIsAViewIntoTheMappedFile) {
    OnnxModelBuilder m(13);
    m.input("x", {20000});
    std::vector<float> big(20000);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i);
    m.initializer("w", big, {20000});
    m.initializer("small", {1.f, 2.f, 3.f}, {3});
    m.node("Add", {"x", "w"}, {"s"});
    m.node("Add", {"s", "small"}, {"y"});
    m.output("y");
    std::string path = m.save("view.onnx");
    auto g = load(path);
    const Tensor* w = g->find_by_name("w").out(0).value();
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->buffer()->is_file_view());
    EXPECT_EQ(w->to_f64()[19999], 19999.0);
    // The loader keeps the mapping alive in keep_alive[1]; the weight lies inside it.
    auto file = std::static_pointer_cast<const MappedFile>(g->keep_alive.at(1));
    EXPECT_EQ(file->path(), path);
    EXPECT_GE(w->bytes(), file->data());
    EXPECT_LE(w->bytes() + w->byte_size(), file->data() + file->size());
    const Tensor* small = g->find_by_name("small").out(0).value();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small->bytes()) % alignof(float), 0u);
    EXPECT_EQ(small->data<float>()[2], 3.f);
}

TEST(OnnxLoader, TypedInitializerFieldsAreConvertedIntoOwnedTensors) {
    OnnxModelBuilder m(13);
    m.initializer("a", {0.5f, -1.f}, {2}, /*raw=*/false);
    m.initializer_i64("b", {7, -8}, {2}, /*raw=*/false);
    onnx::TensorProto h;  // f16 travels as bit patterns in int32_data: 1.0 = 0x3c00
    h.set_name("h");
    h.set_data_type(onnx::TensorProto::FLOAT16);
    h.add_dims(1);
    h.add_int32_data(0x3c00);
    m.initializer(h);
    m.node("Concat", {"a", "b", "h"}, {"y"}, {{"axis", 0}});
    m.output("y");
    auto g = load(m.save("typed.onnx"));
    const Tensor* a = g->find_by_name("a").out(0).value();
    const Tensor* b = g->find_by_name("b").out(0).value();
    const Tensor* hv = g->find_by_name("h").out(0).value();
    EXPECT_FALSE(a->buffer()->is_file_view());
    EXPECT_EQ(a->to_f64(), (std::vector<double>{0.5, -1}));
    EXPECT_EQ(b->type(), ElementType::i64);
    EXPECT_EQ(b->to_i64(), (std::vector<int64_t>{7, -8}));
    EXPECT_EQ(hv->type(), ElementType::f16);
    EXPECT_EQ(hv->to_f64(), (std::vector<double>{1.0}));
}

TEST(OnnxLoader, MixedRawAndTypedInitializersKeepTheirOwnData) {
    OnnxModelBuilder m(13);
    m.initializer("r1", {1.f, 2.f}, {2});
    m.initializer("t", {3.f}, {1}, /*raw=*/false);
    m.initializer_i64("r2", {4, 5, 6}, {3});
    m.node("Concat", {"r2", "t", "r1"}, {"y"}, {{"axis", 0}});
    m.output("y");
    auto g = load(m.save("mixed.onnx"));
    EXPECT_EQ(g->find_by_name("r1").out(0).value()->to_f64(), (std::vector<double>{1, 2}));
    EXPECT_EQ(g->find_by_name("t").out(0).value()->to_f64(), (std::vector<double>{3}));
    EXPECT_EQ(g->find_by_name("r2").out(0).value()->to_i64(), (std::vector<int64_t>{4, 5, 6}));
}

TEST(OnnxLoader, EmptyInputNameLeavesAnOptionalPortUnconnected) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.initializer("hi", {6.f}, {});
    m.node("Clip", {"x", "", "hi"}, {"y"}, {}, "clip");
    m.output("y");
    auto g = load(m.save("clip.onnx"));
    Node clip = g->find_by_name("clip");
    ASSERT_EQ(clip.input_count(), 3u);
    EXPECT_TRUE(clip.in(0).connected());
    EXPECT_FALSE(clip.in(1).connected());
    EXPECT_TRUE(clip.in(2).connected());
}

TEST(OnnxLoader, MissingProducerNamesNodeAndTensor) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("Add", {"x", "ghost"}, {"y"}, {}, "adder");
    m.output("y");
    std::string e = error_of(m.save("ghost.onnx"));
    EXPECT_TRUE(contains(e, "ghost")) << e;
    EXPECT_TRUE(contains(e, "adder")) << e;
}

TEST(OnnxLoader, GraphOutputsBecomeResultsInModelOrder) {
    OnnxModelBuilder m(13);
    m.input("x", {4});
    m.node("Relu", {"x"}, {"a"});
    m.node("Neg", {"x"}, {"b"});
    m.output("b");
    m.output("a");
    auto g = load(m.save("outs.onnx"));
    ASSERT_EQ(g->results().size(), 2u);
    EXPECT_EQ(g->results()[0].in(0).src().names(), std::vector<std::string>{"b"});
    EXPECT_EQ(g->results()[1].in(0).src().names(), std::vector<std::string>{"a"});
}

TEST(OnnxLoader, InputShapesCanBeOverriddenByNameOrPosition) {
    OnnxModelBuilder m(13);
    m.input("a", {"N", 3});
    m.input("b", {"N", 3});
    m.node("Add", {"a", "b"}, {"y"});
    m.output("y");
    std::string path = m.save("override.onnx");
    ConversionOptions by_name;
    by_name.inputs = {{"b", PartialShape{2, 3}}};
    auto g = load(path, by_name);
    EXPECT_EQ(g->parameters()[0].out(0).shape(), (PartialShape{Dimension(), 3}));
    EXPECT_EQ(g->parameters()[1].out(0).shape(), (PartialShape{2, 3}));
    EXPECT_EQ(g->parameters()[1].attr<PartialShape>("shape"), (PartialShape{2, 3}));

    ConversionOptions by_position;
    by_position.inputs = {{"", PartialShape{5, 3}}};
    g = load(path, by_position);
    EXPECT_EQ(g->parameters()[0].out(0).shape(), (PartialShape{5, 3}));

    ConversionOptions unknown;
    unknown.inputs = {{"c", PartialShape{1}}};
    std::string e = error_of(path, unknown);
    EXPECT_TRUE(contains(e, "'c'")) << e;
    EXPECT_TRUE(contains(e, "a, b")) << e;
}

TEST(OnnxLoader, TruncatedOrGarbageFilesAreErrorsNamingTheFile) {
    auto m = add_relu_model();
    std::string bytes = m.bytes();
    for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{3}}) {
        std::string path = test::onnx_temp_path("truncated_" + std::to_string(cut) + ".onnx");
        write_file(path, bytes.substr(0, cut));
        std::string e = error_of(path);
        EXPECT_TRUE(contains(e, path)) << cut << ": " << e;
    }
    std::string garbage = test::onnx_temp_path("garbage.onnx");
    write_file(garbage, std::string("\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12));
    EXPECT_TRUE(contains(error_of(garbage), garbage));
    EXPECT_TRUE(contains(error_of(test::onnx_temp_path("absent.onnx")), "absent.onnx"));
}

// Every single-byte corruption and every truncation either loads or is a mo::Error: never a
// crash or another exception type.
TEST(OnnxLoader, CorruptedBytesGiveErrorsNotCrashes) {
    auto m = add_relu_model();
    m.initializer("typed", {1.f, 2.f}, {2}, /*raw=*/false);
    m.node("Relu", {"typed"}, {"t2"});
    m.output("t2");
    const std::string bytes = m.bytes();
    std::string path = test::onnx_temp_path("corrupt.onnx");
    size_t errors = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
        for (int variant = 0; variant < 2; ++variant) {
            std::string b = variant == 0 ? bytes : bytes.substr(0, i);
            if (variant == 0) b[i] = static_cast<char>(b[i] ^ 0xff);
            write_file(path, b);
            try {
                load(path);
            } catch (const Error&) {
                ++errors;
            } catch (const std::exception& e) {
                ADD_FAILURE() << "byte " << i << " variant " << variant << ": " << e.what();
            }
        }
    }
    EXPECT_GT(errors, bytes.size());  // most corruptions are detected
}

TEST(OnnxLoader, InitializerWithWrongRawSizeIsAnError) {
    OnnxModelBuilder m(13);
    onnx::TensorProto t = test::onnx_tensor("w", {1.f, 2.f}, {3});  // 8 bytes for 3 floats
    m.initializer(t);
    m.node("Relu", {"w"}, {"y"});
    m.output("y");
    std::string e = error_of(m.save("short_raw.onnx"));
    EXPECT_TRUE(contains(e, "'w'")) << e;
}

// Found by fuzz_onnx: the typed values were counted after a tensor of the dims was allocated
// (2^60 bytes asked for, out of memory; ASan's allocation-size-too-big).
TEST(OnnxLoader, TypedValuesAreCountedBeforeAllocating) {
    // Typed values; raw bytes viewed in the mapped file; raw bytes copied (text format).
    for (auto [raw, file] : {std::pair{false, "typed_short.onnx"}, std::pair{true, "raw_short.onnx"},
                             std::pair{true, "raw_short.prototxt"}}) {
        OnnxModelBuilder m(13);
        onnx::TensorProto t = test::onnx_tensor_i64("w", {1}, {1}, raw);
        t.set_dims(0, int64_t{1} << 57);  // 2^60 bytes of int64
        m.initializer(t);
        m.node("Neg", {"w"}, {"y"});
        m.output("y", onnx::TensorProto::INT64);
        std::string e = error_of(m.save(file));
        EXPECT_TRUE(contains(e, "'w'")) << e;
        EXPECT_TRUE(contains(e, raw ? "shape needs 1152921504606846976" : "shape needs 144115188075855872")) << e;
    }
}

// byte_size does not know the tensor it is asked about; the error names the initializer.
TEST(OnnxLoader, AnInitializerWhoseByteSizeOverflowsNamesItself) {
    OnnxModelBuilder m(13);
    onnx::TensorProto t = test::onnx_tensor("w", {1.f}, {1});
    t.set_dims(0, int64_t{1} << 60);  // 2^60 floats over 4 bytes
    m.initializer(t);
    m.node("Relu", {"w"}, {"y"});
    m.output("y");
    std::string e = error_of(m.save("byte_size_overflow.onnx"));
    EXPECT_TRUE(contains(e, "'w'")) << e;
    EXPECT_TRUE(contains(e, "1152921504606846976 elements of f32 have more bytes than 64 bits count")) << e;
}

// A model whose initializer `w` (2 floats) lives in `location` at `offset`.
std::string external_model(const std::string& name, const std::string& location, int64_t offset) {
    OnnxModelBuilder m(13);
    onnx::TensorProto t = test::onnx_external_tensor("w", location, {2});
    auto* off = t.add_external_data();
    off->set_key("offset");
    off->set_value(std::to_string(offset));
    auto* len = t.add_external_data();
    len->set_key("length");
    len->set_value("8");
    m.initializer(t);
    m.node("Relu", {"w"}, {"y"});
    m.output("y");
    return m.save(name);
}

TEST(OnnxLoader, ExternalDataIsMappedFromTheModelDirectory) {
    float values[3] = {9.f, 1.5f, -2.f};
    write_file(test::onnx_temp_path("weights.bin"), std::string(reinterpret_cast<const char*>(values), sizeof values));
    auto g = load(external_model("ext_ok.onnx", "weights.bin", 4));
    const Tensor* w = g->find_by_name("w").out(0).value();
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->buffer()->is_file_view());
    EXPECT_EQ(w->to_f64(), (std::vector<double>{1.5, -2}));
}

TEST(OnnxLoader, ExternalDataOutsideTheModelDirectoryOrFileIsRejected) {
    float values[2] = {1.f, 2.f};
    write_file(test::onnx_temp_path("w2.bin"), std::string(reinterpret_cast<const char*>(values), sizeof values));
    std::string dir_name = std::filesystem::path(test::onnx_temp_path("x")).parent_path().filename().string();
    std::string e = error_of(external_model("ext_up.onnx", "../" + dir_name + "/../w2.bin", 0));
    EXPECT_TRUE(contains(e, "leaves the model's directory")) << e;
    e = error_of(external_model("ext_abs.onnx", test::onnx_temp_path("w2.bin"), 0));
    EXPECT_TRUE(contains(e, "absolute")) << e;
    e = error_of(external_model("ext_off.onnx", "w2.bin", 4));  // 8 bytes needed, 4 left
    EXPECT_TRUE(contains(e, "offset 4")) << e;
    e = error_of(external_model("ext_far.onnx", "w2.bin", 100));
    EXPECT_TRUE(contains(e, "outside")) << e;
    // A symlink inside the directory that points outside it is rejected too.
    std::error_code ec;
    std::filesystem::remove(test::onnx_temp_path("link.bin"), ec);
    std::filesystem::create_symlink("/etc/hostname", test::onnx_temp_path("link.bin"));
    e = error_of(external_model("ext_link.onnx", "link.bin", 0));
    EXPECT_TRUE(contains(e, "leaves the model's directory")) << e;
}

TEST(OnnxLoader, TextFormatModelsLoad) {
    auto m = add_relu_model();
    auto g = load(m.save("add_relu.prototxt"));
    EXPECT_EQ(g->parameters().size(), 1u);
    const Tensor* w = g->find_by_name("w").out(0).value();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->to_f64(), (std::vector<double>{1, 2, 3}));
    EXPECT_TRUE(looks_like_onnx(m.save("probe.prototxt")));
    EXPECT_TRUE(looks_like_onnx(m.save("probe.onnx")));
}

// A syntax error is reported at its line and column (1-based), in mo's one error.
TEST(OnnxLoader, TextFormatErrorsNameTheirLineAndColumn) {
    const std::string path = test::onnx_temp_path("broken.prototxt");
    std::ofstream(path) << "ir_version: 8\ngraph {\n  node { op_type: \"Relu\" bogus: 1 }\n}\n";
    const std::string e = error_of(path);
    EXPECT_TRUE(contains(e, "cannot parse the ONNX text-format model: line 3, column")) << e;
    EXPECT_TRUE(contains(e, "bogus")) << e;
}

TEST(OnnxLoader, UnimportedDomainIsAnErrorAndAnOldOpsetIsRecorded) {
    OnnxModelBuilder m(13);
    m.input("x", {1});
    m.node("Foo", {"x"}, {"y"}, {}, "foo", "com.example");
    m.output("y");
    EXPECT_TRUE(contains(error_of(m.save("domain.onnx")), "com.example"));
    OnnxModelBuilder old(6);
    old.input("x", {1});
    old.node("Relu", {"x"}, {"y"}, {}, "relu");
    old.output("y");
    auto g = load(old.save("old.onnx"));
    EXPECT_EQ(g->find_by_name("relu").framework().opset, 6);
    OnnxModelBuilder none(13);
    none.model().clear_opset_import();
    none.input("x", {1});
    none.node("Relu", {"x"}, {"y"});
    none.output("y");
    EXPECT_TRUE(contains(error_of(none.save("no_opset.onnx")), "does not import"));
}

}  // namespace
}  // namespace mo
