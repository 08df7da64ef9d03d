#include "transforms/front/output_cut.hpp"

#include <gtest/gtest.h>

#include "transforms/support/transform_test_graph.hpp"

namespace mo {
namespace {

using test::TestGraph;

// x -> relu1 (tensor "r1") -> relu2 -> out ; relu1 -> relu3 (tensor "r3") -> out2
void build(TestGraph& t) {
    auto x = t.input(ElementType::f32, {2}, "x");
    auto r1 = t.op("Relu", {x}, {}, "relu1");
    r1.names().push_back("r1");
    auto r2 = t.op("Relu", {r1}, {}, "relu2");
    auto r3 = t.op("Relu", {r1}, {}, "relu3");
    r3.names().push_back("r3");
    t.output(r2, "out");
    t.output(r3, "out2");
}

TEST(OutputCut, CutsAtTensorAndNodeNamesInTheGivenOrder) {
    TestGraph t;
    build(t);
    ConversionOptions opts;
    opts.outputs = {"r3", "relu1"};
    OutputCut pass;
    EXPECT_TRUE(pass.condition(t.graph(), TransformContext{opts}));
    EXPECT_TRUE(pass.run(t.graph(), TransformContext{opts}));

    TestGraph e;
    auto x = e.input(ElementType::f32, {2}, "x");
    auto r1 = e.op("Relu", {x}, {}, "relu1");
    r1.names().push_back("r1");
    auto r3 = e.op("Relu", {r1}, {}, "relu3");
    r3.names().push_back("r3");
    e.output(r3, "r3/sink_port_0");
    e.output(r1, "relu1/sink_port_0");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));
    ASSERT_EQ(t->results().size(), 2u);
    EXPECT_EQ(t->results()[0].name(), "r3/sink_port_0");
    EXPECT_EQ(t->results()[1].name(), "relu1/sink_port_0");
}

TEST(OutputCut, NodeColonPortNamesAnOutput) {
    TestGraph t;
    build(t);
    ConversionOptions opts;
    opts.outputs = {"relu2:0"};
    EXPECT_TRUE(OutputCut().run(t.graph(), TransformContext{opts}));
    TestGraph e;
    auto x = e.input(ElementType::f32, {2}, "x");
    auto r1 = e.op("Relu", {x}, {}, "relu1");
    r1.names().push_back("r1");
    e.output(e.op("Relu", {r1}, {}, "relu2"), "relu2:0/sink_port_0");
    EXPECT_EQ(test::dump(t.graph()), test::dump(e.graph()));

    TestGraph bad;
    build(bad);
    opts.outputs = {"relu2:1"};
    EXPECT_THROW(OutputCut().run(bad.graph(), TransformContext{opts}), Error);
}

TEST(OutputCut, DisabledWithoutOutputs) {
    TestGraph t;
    build(t);
    ConversionOptions opts;
    EXPECT_FALSE(OutputCut().condition(t.graph(), TransformContext{opts}));
}

TEST(OutputCut, UnknownNameListsTheTensors) {
    TestGraph t;
    build(t);
    std::string before = test::dump(t.graph());
    ConversionOptions opts;
    opts.outputs = {"nope"};
    OutputCut pass;
    try {
        pass.run(t.graph(), TransformContext{opts});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
        EXPECT_NE(e.hint().find("r1"), std::string::npos);
        EXPECT_NE(e.hint().find("r3"), std::string::npos);
    }
    EXPECT_EQ(test::dump(t.graph()), before);
}

}  // namespace
}  // namespace mo
