#include "emit/ir_writer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "emit/ir_test_util.hpp"
#include "support/op_test_util.hpp"
#include "support/graph_builder.hpp"

namespace mo {
namespace {

using test::canonical_xml;
using test::GraphBuilder;
using test::ScratchDir;
using Ints = std::vector<int64_t>;

EmitOptions options_in(const ScratchDir& dir, const std::string& name = "model") {
    EmitOptions o;
    o.xml_path = dir.file(name + ".xml");
    o.bin_path = dir.file(name + ".bin");
    o.model_name = name;
    return o;
}

std::vector<float> iota_floats(size_t n, float start, float step) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
    return v;
}

// Parameter -> Convolution(Const) -> Add(Const) -> Relu -> Result: ir-format.md §12.
struct TinyCnn {
    std::vector<float> weights = iota_floats(4 * 3 * 3 * 3, -1.f, 0.25f);
    std::vector<float> bias = {0.5f, -0.5f, 1.5f, -1.5f};
    GraphBuilder b;
    TinyCnn() {
        auto x = b.input(ElementType::f32, {1, 3, 8, 8}, "input");
        auto w = b.constant<float>(weights, {4, 3, 3, 3}, "conv.weight");
        auto conv = b.op("Convolution", {x, w},
                         {{"strides", Ints{1, 1}}, {"dilations", Ints{1, 1}}, {"pads_begin", Ints{1, 1}},
                          {"pads_end", Ints{1, 1}}, {"auto_pad", std::string("explicit")}},
                         "conv");
        auto bias_port = b.constant<float>(bias, {1, 4, 1, 1}, "conv.bias");
        auto add = b.op("Add", {conv, bias_port}, {}, "conv/add");
        auto relu = b.op("Relu", {add}, {}, "relu");
        relu.names().push_back("output");
        b.output(relu, "output");
        test::infer_all(b.graph());
    }
};

// The complete example of ir-format.md §12, verbatim (whitespace aside).
constexpr const char* kReferenceIr = R"(<?xml version="1.0"?>
<net name="tiny_cnn" version="11">
	<layers>
		<layer id="0" name="input" type="Parameter" version="opset1">
			<data shape="1,3,8,8" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="input"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port>
			</output>
		</layer>
		<layer id="1" name="conv.weight" type="Const" version="opset1">
			<data element_type="f32" shape="4, 3, 3, 3" offset="0" size="432" />
			<output>
				<port id="0" precision="FP32"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port>
			</output>
		</layer>
		<layer id="2" name="conv" type="Convolution" version="opset1">
			<data strides="1, 1" dilations="1, 1" pads_begin="1, 1" pads_end="1, 1" auto_pad="explicit" />
			<input>
				<port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port>
				<port id="1" precision="FP32"><dim>4</dim><dim>3</dim><dim>3</dim><dim>3</dim></port>
			</input>
			<output>
				<port id="2" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
			</output>
		</layer>
		<layer id="3" name="conv.bias" type="Const" version="opset1">
			<data element_type="f32" shape="1, 4, 1, 1" offset="432" size="16" />
			<output>
				<port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port>
			</output>
		</layer>
		<layer id="4" name="conv/add" type="Add" version="opset1">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
				<port id="1" precision="FP32"><dim>1</dim><dim>4</dim><dim>1</dim><dim>1</dim></port>
			</input>
			<output>
				<port id="2" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
			</output>
		</layer>
		<layer id="5" name="relu" type="ReLU" version="opset1">
			<input>
				<port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
			</input>
			<output>
				<port id="1" precision="FP32" names="output"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
			</output>
		</layer>
		<layer id="6" name="output" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim></port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
		<edge from-layer="2" from-port="2" to-layer="4" to-port="0" />
		<edge from-layer="3" from-port="0" to-layer="4" to-port="1" />
		<edge from-layer="4" from-port="2" to-layer="5" to-port="0" />
		<edge from-layer="5" from-port="1" to-layer="6" to-port="0" />
	</edges>
	<rt_info />
</net>
)";

pugi::xml_document load_xml(const std::string& path) {
    pugi::xml_document doc;
    auto ok = doc.load_file(path.c_str());
    EXPECT_TRUE(ok) << ok.description();
    return doc;
}

TEST(IrWriter, TinyCnnMatchesTheReferenceExample) {
    TinyCnn m;
    ScratchDir dir("emit");
    auto opts = options_in(dir, "tiny_cnn");
    EmitStats stats = write_ir(m.b.graph(), opts);
    EXPECT_EQ(stats.layers, 7u);
    EXPECT_EQ(stats.edges, 6u);
    EXPECT_EQ(stats.bin_bytes, 448u);

    pugi::xml_document expected;
    ASSERT_TRUE(expected.load_string(kReferenceIr));
    auto got = load_xml(opts.xml_path);
    auto exp_net = expected.child("net"), got_net = got.child("net");
    EXPECT_STREQ(got_net.attribute("name").value(), "tiny_cnn");
    EXPECT_STREQ(got_net.attribute("version").value(), "11");
    EXPECT_EQ(canonical_xml(got_net.child("layers")), canonical_xml(exp_net.child("layers")));
    EXPECT_EQ(canonical_xml(got_net.child("edges")), canonical_xml(exp_net.child("edges")));
    EXPECT_TRUE(got_net.child("rt_info").child("MO_version"));

    std::string text = test::read_bytes(opts.xml_path);
    EXPECT_EQ(text.rfind("<?xml version=\"1.0\"?>\n<net name=\"tiny_cnn\" version=\"11\">\n\t<layers>\n\t\t<layer ", 0), 0u)
        << text.substr(0, 120);

    std::string bin = test::read_bytes(opts.bin_path);
    ASSERT_EQ(bin.size(), 448u);
    EXPECT_EQ(std::memcmp(bin.data(), m.weights.data(), 432), 0);
    EXPECT_EQ(std::memcmp(bin.data() + 432, m.bias.data(), 16), 0);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"tiny_cnn.bin", "tiny_cnn.xml"}));
}

TEST(IrWriter, TwoWritesAreByteIdentical) {
    ScratchDir a("emit_a"), b("emit_b");
    {
        TinyCnn m;
        write_ir(m.b.graph(), options_in(a));
    }
    {
        TinyCnn m;  // a second graph: node ids and addresses differ, bytes must not
        write_ir(m.b.graph(), options_in(b));
    }
    EXPECT_EQ(test::read_bytes(a.file("model.xml")), test::read_bytes(b.file("model.xml")));
    EXPECT_EQ(test::read_bytes(a.file("model.bin")), test::read_bytes(b.file("model.bin")));
}

TEST(IrWriter, IdenticalBytesAreStoredOnce) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    auto c1 = b.constant<float>({1.f, 2.f}, {2}, "c1");
    auto c2 = b.constant<float>({3.f, 4.f}, {2}, "c2");
    auto c3 = b.constant<float>({1.f, 2.f}, {2}, "c3");                   // same bytes as c1
    auto c4 = b.constant<int32_t>({0x3f800000, 0x40000000}, {2}, "c4");  // same bytes as c1, other type
    auto s = b.op("Add", {b.op("Add", {x, c1}), c2});
    s = b.op("Add", {s, c3});
    b.output(s, "y");
    b.output(c4, "z");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    EXPECT_EQ(write_ir(b.graph(), opts).bin_bytes, 16u);

    auto doc = load_xml(opts.xml_path);
    std::map<std::string, std::pair<std::string, std::string>> placed;  // name -> (offset, size)
    for (auto layer : doc.child("net").child("layers").children("layer"))
        if (std::string(layer.attribute("type").value()) == "Const")
            placed[layer.attribute("name").value()] = {layer.child("data").attribute("offset").value(),
                                                       layer.child("data").attribute("size").value()};
    ASSERT_EQ(placed.size(), 4u);
    EXPECT_EQ(placed["c1"], std::make_pair(std::string("0"), std::string("8")));
    EXPECT_EQ(placed["c2"], std::make_pair(std::string("8"), std::string("8")));
    EXPECT_EQ(placed["c3"], placed["c1"]);
    EXPECT_EQ(placed["c4"], placed["c1"]);
    std::string bin = test::read_bytes(opts.bin_path);
    const float expected[] = {1.f, 2.f, 3.f, 4.f};
    ASSERT_EQ(bin.size(), sizeof expected);
    EXPECT_EQ(std::memcmp(bin.data(), expected, sizeof expected), 0);
}

TEST(IrWriter, ScalarsDynamicDimsAndDynamicRank) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, PartialShape{Dimension(), 3, Dimension(1, 512), Dimension(2, -1)}, "x");
    auto r = b.input(ElementType::f16, PartialShape::dynamic_rank(), "r");
    auto two = b.constant(2.f);
    b.output(b.op("Multiply", {x, two}, {}, "mul"), "y");
    b.output(r, "r_out");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    write_ir(b.graph(), opts);
    auto doc = load_xml(opts.xml_path);
    auto layers = doc.child("net").child("layers");

    auto px = layers.find_child_by_attribute("layer", "name", "x");
    EXPECT_STREQ(px.child("data").attribute("shape").value(), "?,3,1..512,2..");
    std::vector<std::string> dims;
    for (auto d : px.child("output").child("port").children("dim")) dims.push_back(d.text().get());
    EXPECT_EQ(dims, (std::vector<std::string>{"-1", "3", "-1", "-1"}));

    auto pr = layers.find_child_by_attribute("layer", "name", "r");
    EXPECT_STREQ(pr.child("data").attribute("shape").value(), "...");
    EXPECT_STREQ(pr.child("data").attribute("element_type").value(), "f16");
    EXPECT_STREQ(pr.child("output").child("port").attribute("precision").value(), "FP16");
    EXPECT_FALSE(pr.child("output").child("port").child("dim"));

    auto scalar = layers.find_child_by_attribute("layer", "type", "Const");
    EXPECT_STREQ(scalar.child("data").attribute("shape").value(), "");
    EXPECT_STREQ(scalar.child("data").attribute("size").value(), "4");
    EXPECT_FALSE(scalar.child("output").child("port").child("dim"));
    // The Multiply's scalar input port has no dims either.
    auto mul = layers.find_child_by_attribute("layer", "name", "mul");
    auto port1 = mul.child("input").find_child_by_attribute("port", "id", "1");
    ASSERT_TRUE(port1);
    EXPECT_FALSE(port1.child("dim"));
}

TEST(IrWriter, EmptyConstantTakesNoBytes) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1}, "x");
    b.output(x, "y");
    b.output(b.constant<int64_t>({}, {0}, "empty"), "z");
    b.output(b.constant<int64_t>({7}, {1}, "seven"), "w");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    EXPECT_EQ(write_ir(b.graph(), opts).bin_bytes, 8u);
    auto doc = load_xml(opts.xml_path);
    auto layers = doc.child("net").child("layers");
    auto empty = layers.find_child_by_attribute("layer", "name", "empty").child("data");
    EXPECT_STREQ(empty.attribute("shape").value(), "0");
    EXPECT_STREQ(empty.attribute("size").value(), "0");
    EXPECT_STREQ(empty.attribute("element_type").value(), "i64");
    auto seven = layers.find_child_by_attribute("layer", "name", "seven").child("data");
    EXPECT_STREQ(seven.attribute("offset").value(), "0");
    EXPECT_STREQ(seven.attribute("size").value(), "8");
}

TEST(IrWriter, ParametersFirstAndResultsLastInModelOrder) {
    GraphBuilder b;
    auto a = b.input(ElementType::f32, {1}, "a");
    auto c = b.input(ElementType::f32, {1}, "c");
    auto sum = b.op("Add", {a, c}, {}, "sum");
    b.output(sum, "out_second");
    b.output(a, "out_first");
    // Model order differs from creation order.
    auto& params = b.graph().parameters();
    std::swap(params[0], params[1]);
    auto& results = b.graph().results();
    std::swap(results[0], results[1]);
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    write_ir(b.graph(), opts);
    auto doc = load_xml(opts.xml_path);
    std::vector<std::string> names;
    for (auto layer : doc.child("net").child("layers").children("layer")) names.push_back(layer.attribute("name").value());
    EXPECT_EQ(names, (std::vector<std::string>{"c", "a", "sum", "out_first", "out_second"}));
}

TEST(IrWriter, TensorNamesSortedWithCommasEscaped) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1}, "x");
    auto y = b.op("Relu", {x}, {}, "relu");
    y.names() = {"zeta", "a,b", "beta"};
    b.output(y, "out");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    write_ir(b.graph(), opts);
    auto doc = load_xml(opts.xml_path);
    auto relu = doc.child("net").child("layers").find_child_by_attribute("layer", "name", "relu");
    EXPECT_STREQ(relu.child("output").child("port").attribute("names").value(), "a\\,b,beta,zeta");
}

TEST(IrWriter, RtInfoAndConversionParameters) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    Node relu = b.node("Relu", {x}, {}, "relu");
    relu.rt_info()["decompression"] = "0";
    relu.fused_names() = {"orig_b", "orig_a"};
    b.output(relu.out(0), "out");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    opts.conversion_parameters = {{"input_model", "m.onnx"}, {"compress_to_fp16", "True"}, {"odd name", "v"}};
    write_ir(b.graph(), opts);
    auto doc = load_xml(opts.xml_path);
    auto layer = doc.child("net").child("layers").find_child_by_attribute("layer", "name", "relu");
    EXPECT_EQ(canonical_xml(layer.child("rt_info")),
              "rt_info\n"
              "  attribute name=\"decompression\" version=\"0\"\n"
              "  attribute name=\"fused_names\" version=\"0\" value=\"orig_a,orig_b,relu\"\n");
    // rt_info comes between <data> (absent for Relu) and the ports.
    EXPECT_STREQ(layer.first_child().name(), "rt_info");
    auto params = doc.child("net").child("rt_info").child("conversion_parameters");
    EXPECT_EQ(canonical_xml(params),
              "conversion_parameters\n"
              "  input_model value=\"m.onnx\"\n"
              "  compress_to_fp16 value=\"True\"\n"
              "  info name=\"odd name\" value=\"v\"\n");
}

TEST(IrWriter, AutoPadZeroesPadsAsOpenVinoWrites) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 1, 4, 4}, "x");
    auto w = b.constant<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3}, "w");
    auto conv = b.op("Convolution", {x, w},
                     {{"strides", Ints{1, 1}}, {"dilations", Ints{1, 1}}, {"pads_begin", Ints{1, 1}},
                      {"pads_end", Ints{1, 1}}, {"auto_pad", std::string("same_upper")}},
                     "conv");
    b.output(conv, "y");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    write_ir(b.graph(), opts);
    auto doc = load_xml(opts.xml_path);
    auto data = doc.child("net").child("layers").find_child_by_attribute("layer", "name", "conv").child("data");
    EXPECT_STREQ(data.attribute("pads_begin").value(), "0, 0");
    EXPECT_STREQ(data.attribute("pads_end").value(), "0, 0");
    EXPECT_STREQ(data.attribute("auto_pad").value(), "same_upper");
}

TEST(IrWriter, DeadNodesAreLeftOut) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    b.op("Relu", {x}, {}, "dangling");
    b.output(b.op("Abs", {x}, {}, "abs"), "y");
    test::infer_all(b.graph());
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    EXPECT_EQ(write_ir(b.graph(), opts).layers, 3u);
    auto doc = load_xml(opts.xml_path);
    EXPECT_FALSE(doc.child("net").child("layers").find_child_by_attribute("layer", "name", "dangling"));
}

TEST(IrWriter, InternalOpIsRejectedAndNothingIsWritten) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2, 3, 4}, "x");
    auto flat = b.op("Flatten", {x}, {}, "my_flatten");
    b.output(flat, "y");
    ScratchDir dir("emit");
    test::expect_error([&] { write_ir(b.graph(), options_in(dir)); }, {"my_flatten", "not supported"});
    EXPECT_TRUE(dir.entries().empty());
}

TEST(IrWriter, UnconnectedInputIsAnError) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    Node add = b.graph().add_node("Add", "half_add");
    add.set_input_count(2);
    add.in(0).connect(x);
    b.output(add.out(0), "y");
    ScratchDir dir("emit");
    test::expect_error([&] { write_ir(b.graph(), options_in(dir)); }, {"half_add", "input 1"});
    EXPECT_TRUE(dir.entries().empty());
}

TEST(IrWriter, ErrorWhileWritingRemovesTemporariesAndKeepsOldFiles) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 1, 4, 4}, "x");
    auto w = b.constant<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3}, "w");
    Node conv = b.graph().add_node("Convolution", "conv_without_strides");  // required attributes unset
    conv.set_input_count(2);
    conv.in(0).connect(x);
    conv.in(1).connect(w);
    conv.out(0).set_type_and_shape(ElementType::f32, PartialShape{1, 1, 2, 2});
    b.output(conv.out(0), "y");
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    { std::ofstream(opts.xml_path) << "old"; }
    EXPECT_THROW(write_ir(b.graph(), opts), Error);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.xml"}));
    EXPECT_EQ(test::read_bytes(opts.xml_path), "old");
}

TEST(IrWriter, AFailedXmlRenameKeepsTheEarlierBin) {
    TinyCnn m;
    ScratchDir dir("emit");
    auto opts = options_in(dir);
    { std::ofstream(opts.bin_path) << "old bin"; }
    std::filesystem::create_directory(opts.xml_path);  // the xml cannot be renamed onto a directory
    test::expect_error([&] { write_ir(m.b.graph(), opts); }, {"cannot rename output file", opts.xml_path.c_str()});
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.bin", "model.xml"}));
    EXPECT_EQ(test::read_bytes(opts.bin_path), "old bin");
    EXPECT_TRUE(std::filesystem::is_directory(opts.xml_path));

    // Without an earlier bin, the new one goes again.
    std::filesystem::remove(opts.bin_path);
    EXPECT_THROW(write_ir(m.b.graph(), opts), Error);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.xml"});
    // And once the way is clear, the earlier IR is replaced and nothing else is left.
    std::filesystem::remove(opts.xml_path);
    { std::ofstream(opts.bin_path) << "old bin"; }
    write_ir(m.b.graph(), opts);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.bin", "model.xml"}));
    EXPECT_NE(test::read_bytes(opts.bin_path), "old bin");
}

TEST(IrWriter, MissingOutputDirectoryIsAnError) {
    TinyCnn m;
    ScratchDir dir("emit");
    EmitOptions opts;
    opts.xml_path = dir.file("no/such/dir/m.xml");
    opts.bin_path = dir.file("no/such/dir/m.bin");
    EXPECT_THROW(write_ir(m.b.graph(), opts), Error);
}

}  // namespace
}  // namespace mo
