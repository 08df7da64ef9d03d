// Packed u1/u4/i4 constants through the IR: a hand-written IR `Const(u4/i4/u1) -> Convert(f32)`
// read and evaluated end to end, and a written constant's BIN size and bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "emit/ir_test_util.hpp"
#include "emit/ir_writer.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "support/graph_builder.hpp"
#include "support/op_test_util.hpp"
#include "core/evaluator.hpp"

namespace mo {
namespace {

using test::ScratchDir;
using test::values;

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(f.good());
}

// x[3,3] + Convert(w:u4[3,3]) -> "dequantized"; Convert(s:i4[5]) -> "signed";
// Convert(b:u1[10]) -> "bits". The constants are back to back at unaligned offsets, and each
// ends inside a byte whose unused bits are set (they must be ignored).
constexpr const char* kIr = R"(<?xml version="1.0"?>
<net name="low_bit" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="3,3" element_type="f32" />
			<output><port id="0" precision="FP32"><dim>3</dim><dim>3</dim></port></output>
		</layer>
		<layer id="1" name="w" type="Const" version="opset1">
			<data element_type="u4" shape="3, 3" offset="0" size="5" />
			<output><port id="0" precision="U4"><dim>3</dim><dim>3</dim></port></output>
		</layer>
		<layer id="2" name="w/convert" type="Convert" version="opset1">
			<data destination_type="f32" />
			<input><port id="0" precision="U4"><dim>3</dim><dim>3</dim></port></input>
			<output><port id="1" precision="FP32"><dim>3</dim><dim>3</dim></port></output>
		</layer>
		<layer id="3" name="add" type="Add" version="opset1">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>3</dim><dim>3</dim></port>
				<port id="1" precision="FP32"><dim>3</dim><dim>3</dim></port>
			</input>
			<output><port id="2" precision="FP32"><dim>3</dim><dim>3</dim></port></output>
		</layer>
		<layer id="4" name="dequantized" type="Result" version="opset1">
			<input><port id="0" precision="FP32"><dim>3</dim><dim>3</dim></port></input>
		</layer>
		<layer id="5" name="s" type="Const" version="opset1">
			<data element_type="i4" shape="5" offset="5" size="3" />
			<output><port id="0" precision="I4"><dim>5</dim></port></output>
		</layer>
		<layer id="6" name="s/convert" type="Convert" version="opset1">
			<data destination_type="f32" />
			<input><port id="0" precision="I4"><dim>5</dim></port></input>
			<output><port id="1" precision="FP32"><dim>5</dim></port></output>
		</layer>
		<layer id="7" name="signed" type="Result" version="opset1">
			<input><port id="0" precision="FP32"><dim>5</dim></port></input>
		</layer>
		<layer id="8" name="b" type="Const" version="opset1">
			<data element_type="u1" shape="10" offset="8" size="2" />
			<output><port id="0" precision="BIN"><dim>10</dim></port></output>
		</layer>
		<layer id="9" name="b/convert" type="Convert" version="opset1">
			<data destination_type="f32" />
			<input><port id="0" precision="BIN"><dim>10</dim></port></input>
			<output><port id="1" precision="FP32"><dim>10</dim></port></output>
		</layer>
		<layer id="10" name="bits" type="Result" version="opset1">
			<input><port id="0" precision="FP32"><dim>10</dim></port></input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="3" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="2" from-port="1" to-layer="3" to-port="1" />
		<edge from-layer="3" from-port="2" to-layer="4" to-port="0" />
		<edge from-layer="5" from-port="0" to-layer="6" to-port="0" />
		<edge from-layer="6" from-port="1" to-layer="7" to-port="0" />
		<edge from-layer="8" from-port="0" to-layer="9" to-port="0" />
		<edge from-layer="9" from-port="1" to-layer="10" to-port="0" />
	</edges>
</net>
)";

// w (u4, low nibble first): 2,1, 10,3, 15,12, 4,14, 9 + a set unused nibble
// s (i4): 2,1, -6,3, -1 + a set unused nibble
// b (u1, MSB first): 0,0,1,0,0,0,0,1, 1,0 + six set unused bits
const std::string kBin = std::string("\x12\x3a\xcf\xe4\xf9", 5) + std::string("\x12\x3a\xff", 3) +
                         std::string("\x21\xbf", 2);

std::map<std::string, Tensor> run(const Graph& g, const Tensor& x) {
    auto out = evaluate(g, {x});
    std::map<std::string, Tensor> by_name;
    for (size_t i = 0; i < out.size(); ++i) by_name[g.results().at(i).name()] = out[i];
    return by_name;
}

TEST(IrLowBit, ReadsAndEvaluatesPackedConstants) {
    ScratchDir dir("ir_low_bit");
    write_file(dir.file("model.xml"), kIr);
    write_file(dir.file("model.bin"), kBin);
    auto g = read_ir(dir.file("model.xml"), test::builtin_ops());

    std::map<std::string, const Tensor*> consts;
    for (Node n : g->nodes())
        if (n.is("Constant")) consts[n.name()] = n.out(0).value();
    ASSERT_EQ(consts.size(), 3u);
    EXPECT_EQ(consts["w"]->type(), ElementType::u4);
    EXPECT_EQ(consts["w"]->byte_size(), 5u);
    EXPECT_EQ(consts["s"]->type(), ElementType::i4);
    EXPECT_EQ(consts["s"]->byte_size(), 3u);
    EXPECT_EQ(consts["b"]->type(), ElementType::u1);
    EXPECT_EQ(consts["b"]->byte_size(), 2u);

    auto out = run(*g, Tensor::from_vector<float>({0, 0, 0, 0, 0, 0, 0, 0, 0.5f}, {3, 3}));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out["dequantized"].shape(), (Shape{3, 3}));
    EXPECT_EQ(values<float>(out["dequantized"]), (std::vector<float>{2, 1, 10, 3, 15, 12, 4, 14, 9.5f}));
    EXPECT_EQ(values<float>(out["signed"]), (std::vector<float>{2, 1, -6, 3, -1}));
    EXPECT_EQ(values<float>(out["bits"]), (std::vector<float>{0, 0, 1, 0, 0, 0, 0, 1, 1, 0}));
}

TEST(IrLowBit, RejectsAPackedConstantShorterThanItsShape) {
    ScratchDir dir("ir_low_bit");
    std::string xml = kIr;
    const std::string full = R"(offset="0" size="5")";
    xml.replace(xml.find(full), full.size(), R"(offset="0" size="4")");  // 9 nibbles need 5 bytes
    write_file(dir.file("model.xml"), xml);
    write_file(dir.file("model.bin"), kBin);
    test::expect_error([&] { read_ir(dir.file("model.xml"), test::builtin_ops()); },
                       "smaller than the 5 bytes that u4 x 9 elements need");
}

TEST(IrLowBit, WritesPackedBytesAndReadsThemBack) {
    test::GraphBuilder b;
    auto x = b.input(ElementType::f32, {3}, "x");
    std::vector<std::byte> bytes{std::byte{0x8f}, std::byte{0x07}};  // i4 -1, -8, 7
    Tensor w(ElementType::i4, Shape{3}, std::make_shared<OwnedBuffer>(bytes));
    auto c = b.graph().add_constant("w", w).out(0);
    auto y = b.op("Multiply", {x, b.op("Convert", {c}, {{"destination_type", ElementType::f32}})});
    b.output(y, "y");
    test::infer_all(b.graph());

    ScratchDir dir("ir_low_bit");
    EmitOptions o;
    o.xml_path = dir.file("model.xml");
    o.bin_path = dir.file("model.bin");
    o.model_name = "model";
    write_ir(b.graph(), o);

    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(o.xml_path.c_str()));
    pugi::xml_node layer = test::layer_of_type(doc, "Const");
    EXPECT_STREQ(layer.child("data").attribute("element_type").value(), "i4");
    EXPECT_STREQ(layer.child("data").attribute("size").value(), "2");
    EXPECT_STREQ(layer.child("output").child("port").attribute("precision").value(), "I4");
    EXPECT_EQ(test::const_bytes(layer, test::read_bytes(o.bin_path)), std::string("\x8f\x07", 2));

    auto g = read_ir(o.xml_path, test::builtin_ops());
    auto out = evaluate(*g, {Tensor::from_vector<float>({2, 3, 0.5f}, {3})});
    EXPECT_EQ(values<float>(out.at(0)), (std::vector<float>{-2, -24, 3.5f}));
}

}  // namespace
}  // namespace mo
