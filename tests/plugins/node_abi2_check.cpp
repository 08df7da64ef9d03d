// Node::graph(), id() and op() became inline within ABI 2. A plugin built against the earlier
// ABI-2 headers calls them out of line: this program makes those calls, through the symbols
// that plugin would use, linked against the shared library alone (core/node_abi2.cpp keeps
// them). It uses none of the inline accessors, so every answer comes from the library.
// Run by ctest; exits 1 naming what is wrong.
#include <cstdio>

#include "core/graph.hpp"
#include "core/op_schema.hpp"

namespace earlier_headers {
mo::Graph& graph(const mo::Node* n) asm("_ZNK2mo4Node5graphEv");
uint64_t id(const mo::Node* n) asm("_ZNK2mo4Node2idEv");
const mo::OpSchema& op(const mo::Node* n) asm("_ZNK2mo4Node2opEv");
}  // namespace earlier_headers

int main() {
    mo::OpRegistry ops;
    mo::OpSchema first, second;
    first.type = "First";
    second.type = "Second";
    ops.add(first);
    ops.add(second);
    mo::Graph g(ops);
    g.add_node("First", "a");
    const mo::Node b = g.add_node("Second", "b");
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) std::fprintf(stderr, "Node::%s() as the earlier ABI-2 headers call it: wrong answer\n", what);
        failures += !ok;
    };
    check(&earlier_headers::graph(&b) == &g, "graph");
    const mo::Node found = g.find_by_id(earlier_headers::id(&b));
    check(found && found.name() == "b", "id");
    check(&earlier_headers::op(&b) == &ops.get("Second"), "op");
    if (failures == 0) std::puts("Node::graph(), id() and op() answer through the library's symbols");
    return failures == 0 ? 0 : 1;
}
