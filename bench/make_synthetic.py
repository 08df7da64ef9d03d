#!/usr/bin/env python3
"""Writes ONNX graphs of N cheap nodes to measure mo's per-node costs.

  chain:        x -> Relu -> Neg -> Relu -> ... (one long dependency chain)
  add_relu:     x -> Add(c) -> Relu -> Add(c) -> Relu -> ...: one chain whose Adds all read the same
                constant c of shape [16], broadcast against x [1, 16], as real graphs share
                biases and scales; every node and tensor named
  wide:         a DAG of width 64: every node adds two nodes of the previous layer
  transformer:  small transformer blocks (MatMul, Add, LayerNormalization, Softmax, ...)
                repeated until the graph has N nodes, with tiny weights
  fan:          x read by N - 1 Relu nodes whose outputs one Sum adds: one output with
                N - 1 consumers and one node with N - 1 inputs

  bench/make_synthetic.py --kind chain|add_relu|wide|transformer|fan --nodes N --out model.onnx

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx). Not run by CI.
"""
import argparse

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def chain(n):
    nodes, x = [], "x"
    for i in range(n):
        y = "t%d" % i if i < n - 1 else "y"
        nodes.append(helper.make_node("Relu" if i % 2 == 0 else "Neg", [x], [y], name="n%d" % i))
        x = y
    return nodes, []


def add_relu(n):
    nodes, x = [], "x"
    for i in range(n):
        y = "t%d" % i if i < n - 1 else "y"
        inputs = [x, "c"] if i % 2 == 0 else [x]
        nodes.append(helper.make_node("Add" if i % 2 == 0 else "Relu", inputs, [y], name="n%d" % i))
        x = y
    c = np.linspace(-1, 1, 16, dtype=np.float32)
    return nodes, [numpy_helper.from_array(c, "c")]


def wide(n, width=64):
    nodes = []
    layer = ["x"] * width
    for i in range(n - 1):
        col = i % width
        if col == 0 and i > 0:
            layer = [nodes[j].output[0] for j in range(len(nodes) - width, len(nodes))]
        a, b = layer[col], layer[(col + 1) % width]
        nodes.append(helper.make_node("Add", [a, b], ["t%d" % i], name="n%d" % i))
    # one final node joins the last layer so that every node reaches the output
    last = [nd.output[0] for nd in nodes[-width:]]
    nodes.append(helper.make_node("Sum", last, ["y"], name="n%d" % (n - 1)))
    return nodes, []


def fan(n):
    nodes = [helper.make_node("Relu", ["x"], ["t%d" % i], name="n%d" % i) for i in range(n - 1)]
    nodes.append(helper.make_node("Sum", [nd.output[0] for nd in nodes], ["y"], name="n%d" % (n - 1)))
    return nodes, []


def transformer(n, dim=16):
    rng = np.random.default_rng(0)
    nodes, inits, x, i = [], [], "x", 0

    def w(shape):
        name = "w%d" % len(inits)
        inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name))
        return name

    def op(op_type, inputs, **attrs):
        nonlocal i
        i += 1
        nodes.append(helper.make_node(op_type, inputs, ["t%d" % i], name="n%d" % i, **attrs))
        return "t%d" % i

    while len(nodes) + 14 <= n:  # a block is 14 nodes
        h = op("LayerNormalization", [x, w([dim]), w([dim])], axis=-1)
        q, k, v = (op("MatMul", [h, w([dim, dim])]) for _ in range(3))
        s = op("Softmax", [op("MatMul", [q, op("Transpose", [k], perm=[0, 2, 1])])], axis=-1)
        x = op("Add", [x, op("MatMul", [op("MatMul", [s, v]), w([dim, dim])])])
        x = op("Add", [x, op("MatMul", [op("Relu", [op("MatMul", [x, w([dim, dim])])]), w([dim, dim])])])
    while len(nodes) < n:
        x = op("Relu", [x])
    nodes[-1].output[0] = "y"
    return nodes, inits


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", choices=["chain", "add_relu", "wide", "transformer", "fan"], required=True)
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    nodes, inits = {"chain": chain, "add_relu": add_relu, "wide": wide, "transformer": transformer, "fan": fan}[a.kind](a.nodes)
    shape = [1, 8, 16] if a.kind == "transformer" else [1, 16]
    graph = helper.make_graph(nodes, a.kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="mo-bench")
    model.ir_version = 8
    with open(a.out, "wb") as f:
        f.write(model.SerializeToString())
    print("%s: %d nodes" % (a.out, len(nodes)))


if __name__ == "__main__":
    main()
