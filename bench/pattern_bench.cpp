// Times the built-in pattern fusions on synthetic graphs of 10,000 and 100,000 nodes and prints
// how the time grows (near-linear matching: about 10x for 10x the nodes). Not run by CI:
//   ./build/bench/mo-pattern-bench [small_nodes]
// Each block of the chain is Relu -> GELU decomposition (erf form, 6 nodes + 3 constants) ->
// x * sigmoid(x) -> Add of a constant: every fusion's root type occurs, half of them fuse.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "ops/ops.hpp"
#include "transforms/middle/constant_chain_merge.hpp"
#include "transforms/middle/convolution_multiply_fusion.hpp"
#include "transforms/middle/gelu_fusion.hpp"
#include "transforms/middle/hsigmoid_fusion.hpp"
#include "transforms/middle/hswish_fusion.hpp"
#include "transforms/middle/layer_norm_to_mvn.hpp"
#include "transforms/middle/mish_fusion.hpp"
#include "transforms/middle/pad_fusion.hpp"
#include "transforms/middle/soft_plus_fusion.hpp"
#include "transforms/middle/softmax_fusion.hpp"
#include "transforms/middle/swish_fusion.hpp"
#include "transforms/middle/partial_inference.hpp"

namespace {

using namespace mo;

OutPort scalar(Graph& g, float v, const std::string& name) { return g.add_constant(name, Tensor::scalar<float>(v)).out(0); }

// One block: about 16 nodes.
OutPort block(Graph& g, OutPort x, size_t i) {
    const std::string p = "b" + std::to_string(i) + "/";
    x = g.add_op("Relu", p + "relu", {x}).out(0);
    OutPort div = g.add_op("Divide", p + "div", {x, scalar(g, 1.4142135f, p + "sqrt2")}).out(0);
    OutPort erf = g.add_op("Erf", p + "erf", {div}).out(0);
    OutPort add = g.add_op("Add", p + "add", {erf, scalar(g, 1.f, p + "one")}).out(0);
    OutPort mul = g.add_op("Multiply", p + "mul", {x, add}).out(0);
    x = g.add_op("Multiply", p + "gelu", {mul, scalar(g, 0.5f, p + "half")}).out(0);
    OutPort sig = g.add_op("Sigmoid", p + "sig", {x}).out(0);
    x = g.add_op("Multiply", p + "silu", {x, sig}).out(0);
    return g.add_op("Add", p + "bias", {x, scalar(g, 0.1f, p + "bias_c")}).out(0);
}

std::unique_ptr<Graph> chain(const OpRegistry& ops, size_t nodes) {
    auto g = std::make_unique<Graph>(ops);
    Node p = g->add_op("Parameter", "x", {}, {{"shape", AttrValue(PartialShape::parse("1,16"))},
                                              {"element_type", AttrValue(ElementType::f32)}});
    g->parameters().push_back(p);
    OutPort x = p.out(0);
    for (size_t i = 0; g->node_count() < nodes; ++i) x = block(*g, x, i);
    g->results().push_back(g->add_op("Result", "y", {x}));
    return g;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::unique_ptr<PatternTransformation>> fusion_passes() {
    std::vector<std::unique_ptr<PatternTransformation>> passes;
    passes.push_back(std::make_unique<GeluFusion>());
    passes.push_back(std::make_unique<HSwishFusion>());
    passes.push_back(std::make_unique<HSigmoidFusion>());
    passes.push_back(std::make_unique<SwishFusion>());
    passes.push_back(std::make_unique<SoftPlusFusion>());
    passes.push_back(std::make_unique<MishFusion>());
    passes.push_back(std::make_unique<LayerNormToMVN>());
    passes.push_back(std::make_unique<SoftmaxFusion>());
    passes.push_back(std::make_unique<ConstantChainMerge>());
    passes.push_back(std::make_unique<ConvolutionMultiplyFusion>());
    passes.push_back(std::make_unique<PadFusion>());
    return passes;
}

struct Timing {
    double matching = 0;  // match_pattern() on every candidate root, nothing rewritten
    double passes = 0;    // the whole passes: topological order, matching, rewriting, clean-up
    size_t matches = 0, nodes_left = 0;
};

// Partial inference runs first and is not counted.
Timing time_fusions(const OpRegistry& ops, size_t nodes) {
    auto g = chain(ops, nodes);
    ConversionOptions options;
    TransformContext ctx{options};
    PartialInference().run(*g, ctx);
    auto passes = fusion_passes();
    Timing timing;
    const std::vector<Node> order = g->topological_order();
    auto match_start = std::chrono::steady_clock::now();
    for (auto& pass : passes)
        for (const Pattern& p : pass->patterns())
            for (const Node& n : order)
                if (std::find(p.root_types().begin(), p.root_types().end(), n.type()) != p.root_types().end())
                    timing.matches += match_pattern(p, n).has_value();
    timing.matching = seconds_since(match_start);
    auto start = std::chrono::steady_clock::now();
    for (auto& pass : passes) {
        auto pass_start = std::chrono::steady_clock::now();
        pass->run(*g, ctx);
        double matched = seconds_since(pass_start);
        g->remove_dead_nodes();
        if (std::getenv("MO_BENCH_VERBOSE"))
            std::printf("  %s: %.4f s, clean-up %.4f s\n", pass->id().c_str(), matched, seconds_since(pass_start) - matched);
    }
    timing.passes = seconds_since(start);
    timing.nodes_left = g->node_count();
    return timing;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t small = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
    OpRegistry ops;
    register_builtin_ops(ops);
    Timing a = time_fusions(ops, small), b = time_fusions(ops, small * 10);
    for (const auto& [n, t] : {std::pair{small, a}, std::pair{small * 10, b}})
        std::printf("nodes %zu: matching %.3f s (%zu matches), passes %.3f s (%zu nodes left)\n", n, t.matching,
                    t.matches, t.passes, t.nodes_left);
    std::printf("growth for 10x nodes: matching %.1fx, passes %.1fx\n", b.matching / a.matching, b.passes / a.passes);
    return 0;
}
