#include "core/graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "support/graph_builder.hpp"

namespace mo {
namespace {

using test::GraphBuilder;

TEST(Graph, PortsConnectAndReportSourcesAndTargets) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {1, 4});
    Node a = b.node("FrameworkNode", {x, x}, {}, "a");  // parallel edges from one port
    Node c = b.node("FrameworkNode", {a.out(0)}, {}, "c");
    ASSERT_EQ(a.input_count(), 2u);
    EXPECT_EQ(a.in(0).src(), x);
    EXPECT_EQ(a.in(1).src(), x);
    auto targets = x.targets();
    ASSERT_EQ(targets.size(), 2u);
    EXPECT_EQ(targets[0], a.in(0));
    EXPECT_EQ(targets[1], a.in(1));
    EXPECT_EQ(c.in(0).src().node(), a);

    a.in(1).disconnect();
    EXPECT_FALSE(a.in(1).connected());
    EXPECT_EQ(x.targets().size(), 1u);
}

TEST(Graph, ReconnectReplacesTheSource) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2});
    auto y = b.input(ElementType::f32, {2});
    Node n = b.node("FrameworkNode", {x});
    n.in(0).connect(y);
    EXPECT_EQ(n.in(0).src(), y);
    EXPECT_FALSE(x.has_targets());
}

TEST(Graph, ReplaceMovesConsumersNamesAndProvenance) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2});
    Node old_node = b.node("FrameworkNode", {x}, {}, "old");
    old_node.out(0).names().push_back("t");
    Node user = b.node("FrameworkNode", {old_node.out(0)}, {}, "user");
    Node fresh = b.node("FrameworkNode", {x}, {}, "fresh");
    b.graph().replace(old_node, fresh);
    EXPECT_EQ(user.in(0).src().node(), fresh);
    EXPECT_EQ(fresh.name(), "old");
    EXPECT_EQ(fresh.out(0).names(), std::vector<std::string>{"t"});
    EXPECT_EQ(fresh.fused_names(), std::vector<std::string>{"old"});
    EXPECT_EQ(b.graph().node_count(), 3u);
}

TEST(Graph, TopologicalOrderBreaksTiesById) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    Node late = b.node("FrameworkNode", {}, {}, "late_source");  // no inputs, id after x
    Node join = b.node("FrameworkNode", {late.out(0), x}, {}, "join");
    Node early_user = b.node("FrameworkNode", {x}, {}, "x_user");
    std::vector<std::string> names;
    for (Node n : b.graph().topological_order()) names.push_back(n.name());
    EXPECT_EQ(names, (std::vector<std::string>{"x", "late_source", "join", "x_user"}));
    (void)join;
    (void)early_user;
}

// Kahn's order taking the smallest ready id, worked by a plain reference (a std::set of ready
// ids) on a random DAG whose edges run against id order too, with removed nodes leaving gaps,
// over more ids than one summary word of the ready set covers (64 x 64).
TEST(Graph, TopologicalOrderTakesTheSmallestReadyIdOfAWideRandomGraph) {
    GraphBuilder b;
    constexpr size_t kNodes = 6000;
    std::vector<Node> nodes;
    for (size_t i = 0; i < kNodes; ++i) nodes.push_back(b.node("FrameworkNode", {}, {}, "n" + std::to_string(i)));
    std::mt19937 rng(7);
    std::vector<size_t> rank(kNodes);  // a random topological rank: edges go from lower to higher
    std::iota(rank.begin(), rank.end(), size_t{0});
    std::shuffle(rank.begin(), rank.end(), rng);
    std::vector<size_t> by_rank(kNodes);
    for (size_t i = 0; i < kNodes; ++i) by_rank[rank[i]] = i;
    for (size_t r = 1; r < kNodes; ++r) {
        const size_t inputs = rng() % 4;
        Node n = nodes[by_rank[r]];
        n.set_input_count(inputs);
        for (size_t k = 0; k < inputs; ++k) n.in(k).connect(nodes[by_rank[rng() % r]].out(0));
    }
    // Edges leave in every way there is (the order's working copy is sized by the graph's count
    // of edges, which each of these must keep): an input disconnected, connected elsewhere,
    // dropped with the input count, and every edge of a removed node.
    for (size_t r = 1; r < kNodes; ++r) {
        Node n = nodes[by_rank[r]];
        if (n.input_count() == 0) continue;
        if (r % 5 == 0) n.in(0).disconnect();
        else if (r % 7 == 0) n.in(0).connect(nodes[by_rank[rng() % r]].out(0));
        else if (r % 11 == 0) n.set_input_count(n.input_count() - 1);
    }
    for (size_t i = 0; i < kNodes; i += 97) b.graph().remove_node(nodes[i]);

    std::map<uint64_t, size_t> pending;  // id -> inputs not yet ordered
    std::map<uint64_t, std::vector<uint64_t>> readers;
    for (const Node& n : b.graph().nodes()) {
        pending[n.id()] = 0;
        for (size_t k = 0; k < n.input_count(); ++k)
            if (n.in(k).connected()) {
                ++pending[n.id()];
                readers[n.in(k).src().node().id()].push_back(n.id());
            }
    }
    std::set<uint64_t> ready;
    for (const auto& [id, count] : pending)
        if (count == 0) ready.insert(id);
    std::vector<uint64_t> expected;
    while (!ready.empty()) {
        const uint64_t id = *ready.begin();
        ready.erase(ready.begin());
        expected.push_back(id);
        for (uint64_t reader : readers[id])
            if (--pending[reader] == 0) ready.insert(reader);
    }
    ASSERT_EQ(expected.size(), b.graph().node_count());

    std::vector<uint64_t> order;
    for (const Node& n : b.graph().topological_order()) order.push_back(n.id());
    EXPECT_EQ(order, expected);
}

TEST(Graph, CycleIsReportedWithANodeName) {
    GraphBuilder b;
    Node a = b.node("FrameworkNode", {}, {}, "a");
    Node c = b.node("FrameworkNode", {a.out(0)}, {}, "c");
    a.set_input_count(1);
    a.in(0).connect(c.out(0));
    try {
        b.graph().topological_order();
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("'a'"), std::string::npos);
    }
}

// The error names the cycle itself, not a node that merely depends on it: `reader` has the
// smallest id of the nodes left unordered, and is not on the cycle.
TEST(Graph, CycleIsReportedAsThePathAroundIt) {
    GraphBuilder b;
    Node reader = b.node("FrameworkNode", {}, {}, "reader");
    Node p = b.node("FrameworkNode", {}, {}, "p");
    Node q = b.node("FrameworkNode", {p.out(0)}, {}, "q");
    Node r = b.node("FrameworkNode", {q.out(0)}, {}, "r");
    p.set_input_count(1);
    p.in(0).connect(r.out(0));
    reader.set_input_count(1);
    reader.in(0).connect(r.out(0));
    try {
        b.graph().topological_order();
        FAIL() << "no error";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'p' (FrameworkNode) -> 'q' (FrameworkNode) -> 'r' (FrameworkNode) -> 'p' (FrameworkNode)"),
                  std::string::npos) << what;
        EXPECT_EQ(what.find("'reader'"), std::string::npos) << what;
    }
}

TEST(Graph, DeadNodesAreRemovedButParametersKept) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2});
    auto unused_input = b.input(ElementType::f32, {2});
    Node live = b.node("FrameworkNode", {x}, {}, "live");
    b.node("FrameworkNode", {x}, {}, "dead");
    b.output(live.out(0));
    EXPECT_EQ(b.graph().remove_dead_nodes(), 1u);
    EXPECT_FALSE(b.graph().find_by_name("dead"));
    EXPECT_TRUE(b.graph().find_by_name("live"));
    EXPECT_TRUE(unused_input.node());
    EXPECT_EQ(b.graph().parameters().size(), 2u);
}

// The order and the clean-up are remembered between calls (passes that change nothing reuse
// them); every kind of change must still be seen.
TEST(Graph, TopologicalOrderAndCleanUpFollowEveryChange) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    Node first = b.node("FrameworkNode", {x}, {}, "first");
    Node second = b.node("FrameworkNode", {x}, {}, "second");
    b.output(first.out(0));
    auto names = [&] {
        std::vector<std::string> v;
        for (Node n : b.graph().topological_order()) v.push_back(n.name());
        return v;
    };
    const std::vector<std::string> before = names();
    EXPECT_EQ(before.size(), 4u);
    EXPECT_EQ(names(), before);
    first.in(0).connect(second.out(0));  // now second -> first
    const auto after = names();
    EXPECT_LT(std::find(after.begin(), after.end(), "second"), std::find(after.begin(), after.end(), "first"));

    EXPECT_EQ(b.graph().remove_dead_nodes(), 0u);
    const size_t first_id = first.id();  // `first` dangles once removed
    b.graph().results().clear();  // an edit of the list alone: first and second are now dead
    EXPECT_EQ(b.graph().remove_dead_nodes(), 3u);  // the Result too: nothing reaches it
    EXPECT_EQ(names(), std::vector<std::string>{"x"});
    EXPECT_FALSE(b.graph().find_by_id(first_id + 1000));
}

TEST(Graph, RemovedNodesAreNotFoundByIdAndNotCounted) {
    GraphBuilder b;
    auto x = b.input(ElementType::f32, {2}, "x");
    Node a = b.node("FrameworkNode", {x}, {}, "a");
    const uint64_t id = a.id();
    const size_t count = b.graph().node_count();
    EXPECT_EQ(b.graph().find_by_id(id), a);
    b.graph().remove_node(a);
    EXPECT_FALSE(b.graph().find_by_id(id));
    EXPECT_EQ(b.graph().node_count(), count - 1);
    EXPECT_EQ(b.graph().nodes().size(), count - 1);
    EXPECT_GT(b.graph().id_limit(), id);
}

TEST(Graph, AttributesReadDefaultsAndRejectMissingRequired) {
    GraphBuilder b;
    Node p = b.graph().add_node("Parameter", "p");
    EXPECT_THROW(p.attr<PartialShape>("shape"), Error);
    p.set_attr("shape", PartialShape{1, Dimension(), Dimension(2, 8)});
    EXPECT_EQ(p.attr<PartialShape>("shape").to_string(), "1,?,2..8");
}

TEST(Graph, ConstantViewsShareTheBuffer) {
    GraphBuilder b;
    Tensor t = Tensor::from_vector<float>({1.f, 2.f, 3.f, 4.f}, {2, 2});
    Node c = b.graph().add_constant("c", t);
    EXPECT_EQ(c.out(0).value()->bytes(), t.bytes());  // not copied
    EXPECT_EQ(c.out(0).shape().to_string(), "2,2");
    EXPECT_EQ(c.out(0).type(), ElementType::f32);
}

}  // namespace
}  // namespace mo
