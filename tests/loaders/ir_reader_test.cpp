// IR reader: round trips through write_ir / convert() and back, and one rejection test per
// rule of shared/ir/ir-format.md §1-§9 that a broken file can violate.
#include "loaders/ir/ir_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "emit/ir_test_util.hpp"
#include "emit/ir_writer.hpp"
#include "support/graph_builder.hpp"
#include "support/onnx_model_builder.hpp"
#include "driver/convert.hpp"

namespace mo {
namespace {

using test::GraphBuilder;
using test::ScratchDir;

const std::vector<float> kBias = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f};

// x[1,2,2,2] -> Convolution(w[3,2,1,1]) -> Add(bias[1,3,1,1]) -> Relu -> Result
std::unique_ptr<Graph> sample_graph() {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 2, 2, 2}, "x");
    auto w = b.constant<float>({1.f, 0.f, 0.f, 1.f, 1.f, 1.f}, {3, 2, 1, 1}, "weights");
    auto conv = b.op("Convolution", {x, w},
                     {{"strides", std::vector<int64_t>{1, 1}}, {"dilations", std::vector<int64_t>{1, 1}},
                      {"pads_begin", std::vector<int64_t>{0, 0}}, {"pads_end", std::vector<int64_t>{0, 0}},
                      {"auto_pad", std::string("explicit")}},
                     "conv");
    auto bias = b.constant<float>({0.5f, -1.f, 2.f}, {1, 3, 1, 1}, "bias");
    auto add = b.op("Add", {conv, bias}, {}, "add");
    auto relu = b.op("Relu", {add}, {}, "relu");
    relu.names() = {"y", "odd,name"};
    b.output(relu, "out");
    test::infer_all(b.graph());
    return b.release();
}

std::string write(const Graph& g, const ScratchDir& dir, const std::string& stem = "model") {
    EmitOptions o;
    o.xml_path = dir.file(stem + ".xml");
    o.bin_path = dir.file(stem + ".bin");
    o.model_name = stem;
    write_ir(g, o);
    return o.xml_path;
}

std::unique_ptr<Graph> read(const std::string& xml) { return read_ir(xml, test::builtin_ops()); }

// Loads the XML, applies `edit`, saves it back.
void edit_xml(const std::string& path, const std::function<void(pugi::xml_document&)>& edit) {
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(path.c_str()));
    edit(doc);
    ASSERT_TRUE(doc.save_file(path.c_str()));
}

pugi::xml_node layer_named(pugi::xml_document& doc, const std::string& name) {
    return doc.child("net").child("layers").find_child_by_attribute("layer", "name", name.c_str());
}

pugi::xml_node edge_into(pugi::xml_document& doc, const std::string& to_layer, const std::string& to_port) {
    for (pugi::xml_node e : doc.child("net").child("edges").children("edge"))
        if (to_layer == e.attribute("to-layer").value() && to_port == e.attribute("to-port").value()) return e;
    return {};
}

// Expects read_ir to throw a mo::Error whose message contains every fragment.
void expect_rejected(const std::string& xml, const std::vector<std::string>& fragments) {
    try {
        read(xml);
        FAIL() << "the IR was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
        EXPECT_NE(msg.find(xml), std::string::npos) << "the file is not named: " << msg;
    }
}

std::string file_text(const std::string& path) { return test::read_bytes(path); }

// Structural equality: same nodes by name with the same op, attributes, inputs (by producer
// name and port), output types, shapes, names and constant bytes.
void expect_same_structure(const Graph& a, const Graph& b) {
    ASSERT_EQ(a.node_count(), b.node_count());
    for (const Node& n : a.nodes()) {
        Node m = b.find_by_name(n.name());
        ASSERT_TRUE(m) << n.name();
        EXPECT_EQ(n.type(), m.type()) << n.name();
        for (const AttrSpec& s : n.op().attrs) EXPECT_EQ(n.attr_value(s.name), m.attr_value(s.name)) << n.name() << "." << s.name;
        ASSERT_EQ(n.input_count(), m.input_count()) << n.name();
        for (size_t i = 0; i < n.input_count(); ++i) {
            EXPECT_EQ(n.in(i).src().node().name(), m.in(i).src().node().name());
            EXPECT_EQ(n.in(i).src().index(), m.in(i).src().index());
        }
        ASSERT_EQ(n.output_count(), m.output_count()) << n.name();
        for (size_t j = 0; j < n.output_count(); ++j) {
            EXPECT_EQ(n.out(j).type(), m.out(j).type()) << n.name();
            EXPECT_EQ(n.out(j).shape(), m.out(j).shape()) << n.name();
            auto na = n.out(j).names(), nb = m.out(j).names();
            std::sort(na.begin(), na.end());
            std::sort(nb.begin(), nb.end());
            EXPECT_EQ(na, nb) << n.name();
            ASSERT_EQ(n.out(j).value() != nullptr, m.out(j).value() != nullptr) << n.name();
            if (n.out(j).value()) EXPECT_TRUE(n.out(j).value()->same_as(*m.out(j).value())) << n.name();
        }
        EXPECT_EQ(n.rt_info(), m.rt_info()) << n.name();
    }
}

TEST(IrReader, RoundTripKeepsStructureAttributesNamesAndConstants) {
    auto g = sample_graph();
    ScratchDir dir("irr");
    auto back = read(write(*g, dir));
    expect_same_structure(*g, *back);
    ASSERT_EQ(back->parameters().size(), 1u);
    EXPECT_EQ(back->parameters()[0].name(), "x");
    ASSERT_EQ(back->results().size(), 1u);
    EXPECT_EQ(back->results()[0].name(), "out");
    // The escaped comma of "odd,name" survives.
    auto names = back->find_by_name("relu").out(0).names();
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"odd,name", "y"}));
    // Constants are views into the mapped .bin, with the values written.
    const Tensor* bias = back->find_by_name("bias").out(0).value();
    ASSERT_TRUE(bias);
    EXPECT_TRUE(bias->buffer()->is_file_view());
    EXPECT_EQ(std::vector<float>(bias->data<float>(), bias->data<float>() + 3), (std::vector<float>{0.5f, -1.f, 2.f}));
    // Writing the read graph again gives the same files byte for byte.
    ScratchDir again("irr2");
    write(*back, again);
    EXPECT_EQ(file_text(dir.file("model.xml")), file_text(again.file("model.xml")));
    EXPECT_EQ(file_text(dir.file("model.bin")), file_text(again.file("model.bin")));
}

TEST(IrReader, SplitGetsItsOutputCountFromTheOutputPorts) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {4, 6}, "x");
    auto axis = b.constant<int64_t>({1}, {}, "axis");
    Node split = b.node("Split", {x, axis}, {{"num_splits", int64_t{3}}}, "split");
    split.set_output_count(3);
    b.output(split.out(0), "r0");
    b.output(split.out(2), "r2");
    auto sum = b.op("Add", {split.out(1), split.out(2)}, {}, "sum");
    b.output(sum, "r_sum");
    test::infer_all(b.graph());
    ScratchDir dir("irr");
    auto back = read(write(b.graph(), dir));
    Node s = back->find_by_name("split");
    ASSERT_TRUE(s);
    EXPECT_EQ(s.output_count(), 3u);
    EXPECT_EQ(s.out(1).shape(), PartialShape({4, 2}));
    EXPECT_EQ(back->find_by_name("sum").in(1).src().index(), 2u);
    ASSERT_EQ(back->results().size(), 3u);
    EXPECT_EQ(back->results()[2].name(), "r_sum");
}

TEST(IrReader, DynamicParameterShapeAndRtInfoAreRead) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, PartialShape{Dimension(), 3, Dimension(1, 10)}, "x");
    auto relu = b.node("Relu", {x}, {}, "relu");
    relu.rt_info()["decompression"] = "0";
    b.output(relu.out(0), "out");
    test::infer_all(b.graph());
    ScratchDir dir("irr");
    auto back = read(write(b.graph(), dir));
    EXPECT_EQ(back->parameters()[0].attr<PartialShape>("shape"), (PartialShape{Dimension(), 3, Dimension(1, 10)}));
    EXPECT_EQ(back->find_by_name("relu").out(0).shape(), (PartialShape{Dimension(), 3, Dimension(1, 10)}));
    EXPECT_EQ(back->find_by_name("relu").rt_info(), (std::map<std::string, std::string>{{"decompression", "0"}}));
}

ConversionResult convert_onnx(const ScratchDir& dir, bool fp16) {
    test::OnnxModelBuilder m(13);
    m.input("x", {1, 2, 3, 3});
    m.initializer("w", {1.f, -2.f, 0.5f, 4.f}, {2, 2, 1, 1});
    m.node("Conv", {"x", "w"}, {"c"}, {{"kernel_shape", {1, 1}}}, "conv");
    m.node("Relu", {"c"}, {"y"}, {}, "relu");
    m.output("y");
    ConversionOptions o;
    o.input_model = m.save(fp16 ? "irr_fp16.onnx" : "irr_fp32.onnx");
    o.output_dir = dir.path().string();
    o.compress_to_fp16 = fp16;
    return convert(o);
}

// The same IR layers and edges after read + write (model rt_info holds conversion parameters
// that the reader does not keep).
void expect_rewrite_identical(const std::string& xml, const Graph& back) {
    ScratchDir again("irr2");
    std::string xml2 = write(back, again);
    pugi::xml_document d1, d2;
    ASSERT_TRUE(d1.load_file(xml.c_str()));
    ASSERT_TRUE(d2.load_file(xml2.c_str()));
    for (const char* part : {"layers", "edges"})
        EXPECT_EQ(test::canonical_xml(d1.child("net").child(part)), test::canonical_xml(d2.child("net").child(part)));
}

TEST(IrReader, ConvertedFp32ModelReadsBack) {
    ScratchDir dir("irr");
    auto r = convert_onnx(dir, false);
    auto back = read(r.xml_path);
    Node w;
    for (const Node& n : back->nodes())
        if (n.is("Constant")) w = n;
    ASSERT_TRUE(w);
    ASSERT_EQ(w.out(0).type(), ElementType::f32);
    EXPECT_EQ(std::vector<float>(w.out(0).value()->data<float>(), w.out(0).value()->data<float>() + 4),
              (std::vector<float>{1.f, -2.f, 0.5f, 4.f}));
    EXPECT_EQ(back->results()[0].in(0).shape(), PartialShape({1, 2, 3, 3}));
    expect_rewrite_identical(r.xml_path, *back);
}

TEST(IrReader, ConvertedFp16ModelKeepsHalfWeightsAndDecompressionConvert) {
    ScratchDir dir("irr");
    auto r = convert_onnx(dir, true);
    auto back = read(r.xml_path);
    Node convert_node;
    for (const Node& n : back->nodes())
        if (n.is("Convert")) convert_node = n;
    ASSERT_TRUE(convert_node);
    EXPECT_EQ(convert_node.rt_info().count("decompression"), 1u);
    const Tensor* w = convert_node.in(0).value();
    ASSERT_TRUE(w);
    ASSERT_EQ(w->type(), ElementType::f16);
    // f16 bit patterns of 1, -2, 0.5, 4.
    EXPECT_EQ(std::vector<uint16_t>(w->data<uint16_t>(), w->data<uint16_t>() + 4),
              (std::vector<uint16_t>{0x3C00, 0xC000, 0x3800, 0x4400}));
    EXPECT_EQ(convert_node.out(0).type(), ElementType::f32);
    expect_rewrite_identical(r.xml_path, *back);
}

TEST(IrReader, AcceptsAChangedConstantByte) {
    auto g = sample_graph();
    ScratchDir dir("irr");
    std::string xml = write(*g, dir);
    std::string bin = file_text(dir.file("model.bin"));
    bin[0] = static_cast<char>(bin[0] ^ 0x01);  // first weight byte; caught by validation, not the reader
    std::ofstream(dir.file("model.bin"), std::ios::binary | std::ios::trunc) << bin;
    auto back = read(xml);
    const Tensor* w = back->find_by_name("weights").out(0).value();
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->same_as(*g->find_by_name("weights").out(0).value()));
    EXPECT_EQ(std::memcmp(w->bytes(), bin.data(), w->byte_size()), 0);
}

TEST(IrReader, TypeLookupIsCaseInsensitiveAndTakesTheCanonicalNameAndVersion10) {
    auto g = sample_graph();
    ScratchDir dir("irr");
    std::string xml = write(*g, dir);
    edit_xml(xml, [](auto& d) {
        d.child("net").attribute("version") = "10";
        layer_named(d, "relu").attribute("type") = "relu";       // IR spelling is "ReLU"
        layer_named(d, "bias").attribute("type") = "Constant";   // canonical name of Const
        layer_named(d, "add").attribute("type") = "ADD";
    });
    auto back = read(xml);
    EXPECT_EQ(back->find_by_name("relu").type(), "Relu");
    EXPECT_EQ(back->find_by_name("add").type(), "Add");
    ASSERT_TRUE(back->find_by_name("bias").out(0).value());
    EXPECT_EQ(back->find_by_name("bias").out(0).value()->data<float>()[2], 2.f);
}

// Each rejection starts from the valid sample IR and breaks one thing.
class IrReaderRejects : public ::testing::Test {
protected:
    void SetUp() override { xml = write(*sample_graph(), dir); }
    void edit(const std::function<void(pugi::xml_document&)>& f) { edit_xml(xml, f); }
    ScratchDir dir{"irr_bad"};
    std::string xml;
};

TEST_F(IrReaderRejects, PortIdDeclaredTwice) {
    edit([](auto& d) {
        pugi::xml_node first = layer_named(d, "add").child("input").first_child();
        first.next_sibling().attribute("id") = first.attribute("id").value();
    });
    expect_rejected(xml, {"layer 'add'", "is declared twice"});
}

TEST_F(IrReaderRejects, UnknownType) {
    edit([](auto& d) { layer_named(d, "relu").attribute("type") = "Bogus"; });
    expect_rejected(xml, {"layer 'relu'", "type Bogus", "not supported"});
}

TEST_F(IrReaderRejects, WrongVersion) {
    edit([](auto& d) { layer_named(d, "relu").attribute("version") = "opset5"; });
    expect_rejected(xml, {"layer 'relu'", "op ReLU version opset5 is not supported by mo"});
}

TEST_F(IrReaderRejects, MissingRequiredAttribute) {
    edit([](auto& d) { layer_named(d, "conv").child("data").remove_attribute("strides"); });
    expect_rejected(xml, {"layer 'conv'", "required attribute 'strides' is missing"});
}

TEST_F(IrReaderRejects, UnknownAttribute) {
    edit([](auto& d) { layer_named(d, "add").child("data").append_attribute("colour") = "red"; });
    expect_rejected(xml, {"layer 'add'", "unknown attribute 'colour'"});
}

TEST_F(IrReaderRejects, MalformedAttributeValue) {
    edit([](auto& d) { layer_named(d, "conv").child("data").attribute("strides") = "1,,1"; });
    expect_rejected(xml, {"layer 'conv'", "'strides' has a malformed value"});
}

TEST_F(IrReaderRejects, ConstRangeOutsideBin) {
    edit([](auto& d) { layer_named(d, "bias").child("data").attribute("offset") = "1000"; });
    expect_rejected(xml, {"layer 'bias'", "outside the .bin"});
}

TEST_F(IrReaderRejects, ConstSizeTooSmall) {
    edit([](auto& d) { layer_named(d, "bias").child("data").attribute("size") = "8"; });
    expect_rejected(xml, {"layer 'bias'", "smaller than the 12 bytes"});
}

TEST_F(IrReaderRejects, EdgeToMissingPort) {
    edit([](auto& d) {
        std::string relu_id = layer_named(d, "relu").attribute("id").value();
        edge_into(d, relu_id, "0").attribute("to-port") = "7";
    });
    expect_rejected(xml, {"layer 'relu'", "input port 7"});
}

TEST_F(IrReaderRejects, TwoEdgesIntoOnePort) {
    edit([](auto& d) {
        std::string add_id = layer_named(d, "add").attribute("id").value();
        pugi::xml_node e = edge_into(d, add_id, "1");
        pugi::xml_node copy = d.child("net").child("edges").append_copy(e);
        copy.attribute("from-layer") = layer_named(d, "weights").attribute("id").value();
    });
    expect_rejected(xml, {"layer 'add'", "two incoming edges"});
}

TEST_F(IrReaderRejects, UnconnectedInputPort) {
    edit([](auto& d) {
        std::string add_id = layer_named(d, "add").attribute("id").value();
        d.child("net").child("edges").remove_child(edge_into(d, add_id, "1"));
    });
    expect_rejected(xml, {"layer 'add'", "no incoming edge"});
}

TEST_F(IrReaderRejects, Cycle) {
    edit([](auto& d) {  // add's first input now comes from relu, which consumes add
        std::string add_id = layer_named(d, "add").attribute("id").value();
        pugi::xml_node e = edge_into(d, add_id, "0");
        e.attribute("from-layer") = layer_named(d, "relu").attribute("id").value();
        e.attribute("from-port") = "1";
    });
    expect_rejected(xml, {"cycle", "node '"});
}

TEST_F(IrReaderRejects, DimsThatDisagreeWithInference) {
    // Same byte count, other shape: the declared <dim>s of the Const no longer match.
    edit([](auto& d) { layer_named(d, "bias").child("data").attribute("shape") = "3, 1, 1, 1"; });
    expect_rejected(xml, {"layer 'bias'", "output port 0 declares dims [1,3,1,1]"});
}

TEST_F(IrReaderRejects, PrecisionThatDisagreesWithInference) {
    edit([](auto& d) {
        layer_named(d, "relu").child("output").child("port").attribute("precision") = "FP16";
    });
    expect_rejected(xml, {"layer 'relu'", "declares precision FP16"});
}

TEST_F(IrReaderRejects, TruncatedXml) {
    std::string text = file_text(xml);
    std::ofstream(xml, std::ios::trunc) << text.substr(0, text.size() / 2);
    expect_rejected(xml, {"malformed XML", "at offset"});
}

TEST_F(IrReaderRejects, WrongRootVersion) {
    edit([](auto& d) { d.child("net").attribute("version") = "7"; });
    expect_rejected(xml, {"IR version '7' is not supported"});
}

TEST_F(IrReaderRejects, MissingLayerId) {
    edit([](auto& d) { layer_named(d, "relu").remove_attribute("id"); });
    expect_rejected(xml, {"layer 'relu'", "missing mandatory attribute 'id'"});
}

TEST_F(IrReaderRejects, MissingBin) {
    std::filesystem::remove(dir.file("model.bin"));
    expect_rejected(xml, {"layer 'weights'", "model.bin"});
}

TEST_F(IrReaderRejects, MalformedParameterShape) {
    edit([](auto& d) { layer_named(d, "x").child("data").attribute("shape") = "1s,2"; });
    expect_rejected(xml, {"layer 'x'", "'shape' has a malformed value"});
}

TEST_F(IrReaderRejects, PortPrecisionSpellingInElementTypeAttribute) {
    edit([](auto& d) { layer_named(d, "x").child("data").attribute("element_type") = "FP32"; });
    expect_rejected(xml, {"layer 'x'", "'element_type' has a malformed value"});
}

TEST_F(IrReaderRejects, EdgeFromUnknownLayer) {
    edit([](auto& d) {
        std::string relu_id = layer_named(d, "relu").attribute("id").value();
        edge_into(d, relu_id, "0").attribute("from-layer") = "99";
    });
    expect_rejected(xml, {"refers to layer 99, which does not exist"});
}

}  // namespace
}  // namespace mo
