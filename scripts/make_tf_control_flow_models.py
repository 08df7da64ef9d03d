#!/usr/bin/python3
"""Writes small TensorFlow graphs with control flow, in the exact forms TensorFlow writes them,
as TF.js graph models (model.json + weights.bin; every Const also keeps its value in the GraphDef,
so that tests can re-serialize modelTopology as a frozen .pb). Reference outputs come from
TensorFlow.js (control flow runs through executeAsync):

    /usr/bin/python3 scripts/make_tf_control_flow_models.py tests/e2e/data/tf_control_flow
    NODE_PATH=/work/npm/node_modules node scripts/tfjs_outputs.js tests/e2e/data/tf_control_flow/*

Inputs are written here too (fixed seed); the conditionals get two directories, one whose input
takes each branch (the `_else` one negates the input).

The forms (TensorFlow 2.x, tensorflow/python/ops/):
* tf2_while: while_v2.py (tf.while_loop in a tf.function, frozen by
  convert_variables_to_constants_v2): StatelessWhile(loop_counter, maximum_iterations, x) with
  attrs T, cond, body, output_shapes, parallel_iterations, _lower_using_switch_merge,
  _num_original_outputs; cond(loop_counter, maximum_iterations, x) = loop_counter <
  maximum_iterations AND the user's condition, ending in an Identity; body increments the
  counter, passes maximum_iterations through, each output through an Identity. Function node
  inputs read "node:output_arg:index" ("Less:z:0", "Sum:output:0").
* tf2_if: cond_v2.py: StatelessIf(pred, x) with Tcond, Tin, Tout, then_branch, else_branch,
  output_shapes; branches of the same arguments ending in Identities, two outputs.
* tf1_while: control_flow_ops.py while_loop with control flow v1 (tf.compat.v1): per loop
  variable while/Enter (frame_name, is_constant false) -> while/Merge <- while/NextIteration,
  the condition on the Merges ending in while/LoopCond, while/Switch(Merge, LoopCond) ->
  while/Identity (output 1) into the body, while/Exit (output 0); an outer tensor read in the
  body through a constant Enter (is_constant true); constants in the condition held by a control
  input from a Merge, in the body by one from while/Identity.
* tf1_cond: control_flow_ops.py cond with control flow v1: cond/Switch(pred, pred) whose outputs
  feed cond/switch_t and cond/switch_f (Identities holding each branch's constants by control
  inputs), cond/pred_id = Identity(pred), a Switch(x, cond/pred_id) per value a branch reads,
  cond/Merge(false value, true value).
* tf1_cond_in_while: a tf1 conditional inside a tf1 loop body (both lifted, innermost first).
* tf2_lowered_map_fn: tf.map_fn(lambda r: r * 2 + 1, x) as grappler's LowerFunctionalOps lowers
  TF2's While before tfjs-converter writes it (the form of @vladmandic/human's handtrack.json):
  every value a non-constant Enter (loop counter, maximum_iterations, the map index, the output
  TensorListReserve, the input TensorListFromTensor), merge/_N, switch/_N, exit/_N and
  next_iteration/_N names, a loop_body_control Identity holding the body's constants by control
  inputs, Func/.../input/_N Identities, TensorListGetItem / TensorListSetItem in the body and
  TensorListStack after the loop.
"""
import base64
import json
import os
import sys

import numpy as np

F, I, B = "DT_FLOAT", "DT_INT32", "DT_BOOL"


def b64(s):
    return base64.b64encode(s.encode()).decode()


def shape(dims):
    return {"dim": [{"size": str(d)} for d in dims]}


class Graph:
    """A GraphDef or a FunctionDef's nodes; constants go to the shared weight list too."""

    def __init__(self, weights):
        self.nodes, self.weights = [], weights

    def node(self, name, op, inputs=(), **attr):
        self.nodes.append({"name": name, "op": op, "input": list(inputs), "attr": attr})
        return name

    def const(self, name, value, dtype=F, inputs=()):
        v = np.asarray(value, np.float32 if dtype == F else np.int32)
        self.node(name, "Const", inputs, dtype={"type": dtype}, value={"tensor": {
            "dtype": dtype, "tensorShape": shape(v.shape), "tensorContent": base64.b64encode(v.tobytes()).decode()}})
        self.weights.append(({"name": name, "shape": list(v.shape), "dtype": "float32" if dtype == F else "int32"}, v.tobytes()))
        return name


def function(name, args, rets, g):
    """A FunctionDef: args [(name, type)], rets [(name, type, tensor)]."""
    return {"signature": {"name": name, "inputArg": [{"name": a, "type": t} for a, t in args],
                          "outputArg": [{"name": r, "type": t} for r, t, _ in rets]},
            "nodeDef": g.nodes, "ret": {r: tensor for r, _, tensor in rets}}


rng = np.random.default_rng(25)


def write(out, graph, functions, inputs, outputs, sign=1.0):
    os.makedirs(out, exist_ok=True)
    for i, name in enumerate(inputs):
        dims = [int(d["size"]) for n in graph.nodes if n["name"] == name for d in n["attr"]["shape"]["shape"]["dim"]]
        value = rng.uniform(-1, 1, dims).astype(np.float32)
        if i == 0:
            value = sign * np.abs(value) * np.where(rng.uniform(size=dims) < 0.8, 1, -1).astype(np.float32)
        np.save(os.path.join(out, f"input_{i}.npy"), value)
    with open(os.path.join(out, "weights.bin"), "wb") as f:
        f.write(b"".join(data for _, data in graph.weights))
    model = {"format": "graph-model", "generatedBy": "2.15.0", "convertedBy": "TensorFlow.js Converter v4.22.0",
             "signature": {"inputs": {n: {"name": n + ":0", "dtype": F} for n in inputs},
                           "outputs": {n: {"name": t, "dtype": F} for n, t in outputs}},
             "modelTopology": {"node": graph.nodes, "library": {"function": functions} if functions else {},
                               "versions": {"producer": 1645}},
             "weightsManifest": [{"paths": ["weights.bin"], "weights": [w for w, _ in graph.weights]}]}
    with open(os.path.join(out, "model.json"), "w") as f:
        json.dump(model, f, indent=1)


def placeholder(g, name, dims):
    return g.node(name, "Placeholder", dtype={"type": F}, shape={"shape": shape(dims)})


T = {"T": {"type": F}}
TI = {"T": {"type": I}}


def tf2_while(out):
    weights = []
    g = Graph(weights)
    placeholder(g, "x", [2, 3])
    g.const("while/loop_counter", 0, I)
    g.const("while/maximum_iterations", 20, I)
    g.node("while", "StatelessWhile", ["while/loop_counter", "while/maximum_iterations", "x"],
           T={"list": {"type": [I, I, F]}}, cond={"func": {"name": "while_cond_17"}},
           body={"func": {"name": "while_body_18"}}, parallel_iterations={"i": "10"},
           output_shapes={"list": {"shape": [{}, {}, shape([2, 3])]}}, _lower_using_switch_merge={"b": True},
           _num_original_outputs={"i": "3"}, _read_only_resource_inputs={"list": {}})
    g.node("Identity", "Identity", ["while:2"], **T)
    g.node("Identity_1", "Identity", ["while"], **TI)
    # cond: counter < max and sum(x) < 10
    c = Graph(weights)
    c.node("Less", "Less", ["while_loop_counter", "while_maximum_iterations"], **TI)
    c.const("Const", [0, 1], I)
    c.node("Sum", "Sum", ["placeholder", "Const:output:0"], keep_dims={"b": False}, Tidx={"type": I}, **T)
    c.const("Less_1/y", 10.0)
    c.node("Less_1", "Less", ["Sum:output:0", "Less_1/y:output:0"], **T)
    c.node("LogicalAnd", "LogicalAnd", ["Less:z:0", "Less_1:z:0"])
    c.node("Identity", "Identity", ["LogicalAnd:z:0"], T={"type": B})
    cond = function("while_cond_17", [("while_loop_counter", I), ("while_maximum_iterations", I), ("placeholder", F)],
                    [("identity", B, "Identity:output:0")], c)
    # body: counter + 1, x * 1.5 + 0.25
    b = Graph(weights)
    b.const("add/y", 1, I)
    b.node("add", "AddV2", ["while_loop_counter", "add/y:output:0"], **TI)
    b.const("mul/y", 1.5)
    b.node("mul", "Mul", ["placeholder", "mul/y:output:0"], **T)
    b.const("add_1/y", 0.25)
    b.node("add_1", "AddV2", ["mul:z:0", "add_1/y:output:0"], **T)
    b.node("Identity", "Identity", ["add:z:0"], **TI)
    b.node("Identity_1", "Identity", ["while_maximum_iterations"], **TI)
    b.node("Identity_2", "Identity", ["add_1:z:0"], **T)
    body = function("while_body_18", [("while_loop_counter", I), ("while_maximum_iterations", I), ("placeholder", F)],
                    [("identity", I, "Identity:output:0"), ("identity_1", I, "Identity_1:output:0"),
                     ("identity_2", F, "Identity_2:output:0")], b)
    write(out, g, [cond, body], ["x"], [("output_0", "Identity:0")])


def tf2_if(out, sign):
    weights = []
    g = Graph(weights)
    placeholder(g, "x", [2, 3])
    g.const("Const", [0, 1], I)
    g.node("Sum", "Sum", ["x", "Const"], keep_dims={"b": False}, Tidx={"type": I}, **T)
    g.const("Greater/y", 0.0)
    g.node("Greater", "Greater", ["Sum", "Greater/y"], **T)
    g.node("cond", "StatelessIf", ["Greater", "x"], Tcond={"type": B}, Tin={"list": {"type": [F]}},
           Tout={"list": {"type": [F, F]}}, then_branch={"func": {"name": "cond_true_30"}},
           else_branch={"func": {"name": "cond_false_31"}}, output_shapes={"list": {"shape": [shape([2, 3]), {}]}},
           _lower_using_switch_merge={"b": True}, _read_only_resource_inputs={"list": {}})
    g.node("Identity", "Identity", ["cond"], **T)
    g.node("Identity_1", "Identity", ["cond:1"], **T)
    t = Graph(weights)
    t.const("mul/y", 2.0)
    t.node("mul", "Mul", ["mul_x", "mul/y:output:0"], **T)
    t.const("Const", [0, 1], I)
    t.node("Max", "Max", ["mul_x", "Const:output:0"], keep_dims={"b": False}, Tidx={"type": I}, **T)
    t.node("Identity", "Identity", ["mul:z:0"], **T)
    t.node("Identity_1", "Identity", ["Max:output:0"], **T)
    then = function("cond_true_30", [("mul_x", F)], [("identity", F, "Identity:output:0"), ("identity_1", F, "Identity_1:output:0")], t)
    e = Graph(weights)
    e.const("sub/y", 1.0)
    e.node("sub", "Sub", ["sub_x", "sub/y:output:0"], **T)
    e.const("Const", [0, 1], I)
    e.node("Min", "Min", ["sub_x", "Const:output:0"], keep_dims={"b": False}, Tidx={"type": I}, **T)
    e.node("Identity", "Identity", ["sub:z:0"], **T)
    e.node("Identity_1", "Identity", ["Min:output:0"], **T)
    other = function("cond_false_31", [("sub_x", F)], [("identity", F, "Identity:output:0"), ("identity_1", F, "Identity_1:output:0")], e)
    write(out, g, [then, other], ["x"], [("output_0", "Identity:0"), ("output_1", "Identity_1:0")], sign)


def tf1_loop(g, x, k, frame, body_value):
    """tf.compat.v1.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, body(v)), [0, x]), k read
    in the body through a constant Enter. `body_value(g, v, k_enter)` builds the body's value."""
    p = frame + "/"
    g.const(p[:-1] + "_init", 0, I)
    attrs = lambda const: {"frame_name": {"s": b64(frame + "/while_context")}, "is_constant": {"b": const},
                           "parallel_iterations": {"i": "10"}}
    g.node(p + "Enter", "Enter", [p[:-1] + "_init"], **TI, **attrs(False))
    g.node(p + "Enter_1", "Enter", [x], **T, **attrs(False))
    g.node(p + "Merge", "Merge", [p + "Enter", p + "NextIteration"], N={"i": "2"}, **TI)
    g.node(p + "Merge_1", "Merge", [p + "Enter_1", p + "NextIteration_1"], N={"i": "2"}, **T)
    g.const(p + "Less/y", 4, I, ["^" + p + "Merge"])
    g.node(p + "Less", "Less", [p + "Merge", p + "Less/y"], **TI)
    g.node(p + "LoopCond", "LoopCond", [p + "Less"])
    g.node(p + "Switch", "Switch", [p + "Merge", p + "LoopCond"], **TI)
    g.node(p + "Switch_1", "Switch", [p + "Merge_1", p + "LoopCond"], **T)
    g.node(p + "Identity", "Identity", [p + "Switch:1"], **TI)
    g.node(p + "Identity_1", "Identity", [p + "Switch_1:1"], **T)
    g.const(p + "add/y", 1, I, ["^" + p + "Identity"])
    g.node(p + "add", "Add", [p + "Identity", p + "add/y"], **TI)
    g.node(p + "mul/Enter", "Enter", [k], **T, **attrs(True))
    value = body_value(g, p, p + "Identity_1", p + "mul/Enter")
    g.node(p + "NextIteration", "NextIteration", [p + "add"], **TI)
    g.node(p + "NextIteration_1", "NextIteration", [value], **T)
    g.node(p + "Exit", "Exit", [p + "Switch"], **TI)
    g.node(p + "Exit_1", "Exit", [p + "Switch_1"], **T)
    return p + "Exit_1"


def tf1_cond(g, pred, x, p, true_fn, false_fn):
    """tf.compat.v1.cond(pred, true_fn, false_fn) reading x in both branches."""
    g.node(p + "Switch", "Switch", [pred, pred], T={"type": B})
    g.node(p + "switch_t", "Identity", [p + "Switch:1"], T={"type": B})
    g.node(p + "switch_f", "Identity", [p + "Switch"], T={"type": B})
    g.node(p + "pred_id", "Identity", [pred], T={"type": B})
    g.node(p + "t/Switch", "Switch", [x, p + "pred_id"], **T)
    g.node(p + "f/Switch", "Switch", [x, p + "pred_id"], **T)
    t = true_fn(g, p + "t/", p + "t/Switch:1", "^" + p + "switch_t")
    f = false_fn(g, p + "f/", p + "f/Switch", "^" + p + "switch_f")
    g.node(p + "Merge", "Merge", [f, t], N={"i": "2"}, **T)
    return p + "Merge"


def scale(factor):
    def build(g, p, v, control):
        g.const(p + "y", factor, F, [control])
        return g.node(p + "mul", "Mul", [v, p + "y"], **T)
    return build


def shift(amount):
    def build(g, p, v, control):
        g.const(p + "y", amount, F, [control])
        return g.node(p + "sub", "Sub", [v, p + "y"], **T)
    return build


def tf1_while(out):
    g = Graph([])
    placeholder(g, "x", [2, 3])
    placeholder(g, "k", [3])

    def body(g, p, v, k):
        m = g.node(p + "mul", "Mul", [v, k], **T)
        g.const(p + "add_1/y", 0.5, F, ["^" + p + "Identity"])
        return g.node(p + "add_1", "Add", [m, p + "add_1/y"], **T)
    result = tf1_loop(g, "x", "k", "while", body)
    g.node("out", "Identity", [result], **T)
    write(out, g, [], ["x", "k"], [("output_0", "out:0")])


def tf1_cond_graph(out, sign):
    g = Graph([])
    placeholder(g, "x", [2, 3])
    g.const("Const", [0, 1], I)
    g.node("Sum", "Sum", ["x", "Const"], keep_dims={"b": False}, Tidx={"type": I}, **T)
    g.const("Greater/y", 0.0)
    g.node("Greater", "Greater", ["Sum", "Greater/y"], **T)
    merge = tf1_cond(g, "Greater", "x", "cond/", scale(2.0), shift(1.0))
    g.node("out", "Identity", [merge], **T)
    write(out, g, [], ["x"], [("output_0", "out:0")], sign)


def tf1_cond_in_while(out):
    g = Graph([])
    placeholder(g, "x", [2, 3])
    placeholder(g, "k", [3])

    def body(g, p, v, k):
        m = g.node(p + "mul", "Mul", [v, k], **T)
        g.const(p + "Const", [0, 1], I, ["^" + p + "Identity"])
        s = g.node(p + "Sum", "Sum", [m, p + "Const"], keep_dims={"b": False}, Tidx={"type": I}, **T)
        g.const(p + "Greater/y", -0.3, F, ["^" + p + "Identity"])
        pred = g.node(p + "Greater", "Greater", [s, p + "Greater/y"], **T)
        return tf1_cond(g, pred, m, p + "cond/", scale(-2.0), scale(-0.5))
    result = tf1_loop(g, "x", "k", "while", body)
    g.node("out", "Identity", [result], **T)
    write(out, g, [], ["x", "k"], [("output_0", "out:0")])


def tf2_lowered_map_fn(out, element_shape):
    weights = []
    g = Graph(weights)
    placeholder(g, "x", [4, 3])
    p = "map/while/"
    frame = {"frame_name": {"s": b64("map/while")}, "is_constant": {"b": False}, "parallel_iterations": {"i": "10"}}
    g.const("map/TensorArrayV2/element_shape", element_shape, I)
    g.const("map/TensorArrayV2/num_elements", 4, I)
    g.node("map/TensorArrayV2", "TensorListReserve", ["map/TensorArrayV2/element_shape", "map/TensorArrayV2/num_elements"],
           element_dtype={"type": F}, shape_type={"type": I})
    g.const("map/TensorArrayUnstack/TensorListFromTensor/element_shape", [3], I)
    g.node("map/TensorArrayUnstack/TensorListFromTensor", "TensorListFromTensor",
           ["x", "map/TensorArrayUnstack/TensorListFromTensor/element_shape"], element_dtype={"type": F}, shape_type={"type": I})
    g.const(p + "loop_counter", 0, I)
    g.const(p + "maximum_iterations", 4, I)
    g.const("map/Const", 0, I)
    sources = [p + "loop_counter", p + "maximum_iterations", "map/Const", "map/TensorArrayV2",
               "map/TensorArrayUnstack/TensorListFromTensor"]
    types = [I, I, I, "DT_VARIANT", "DT_VARIANT"]
    for k, (src, t) in enumerate(zip(sources, types)):
        g.node(f"{p}enter/_{10 + k}", "Enter", [src], T={"type": t}, **frame)
        g.node(f"{p}merge/_{20 + k}", "Merge", [f"{p}enter/_{10 + k}", f"{p}next_iteration/_{40 + k}"], N={"i": "2"}, T={"type": t})
    counter, maximum, index, lst, src_list = (f"{p}merge/_{20 + k}" for k in range(5))
    g.node(p + "cond/_1/map/while/Less_1", "Less", [counter, maximum], **TI)
    g.const(p + "cond/_1/map/while/Less/y", 4, I, ["^" + counter])
    g.node(p + "cond/_1/map/while/Less", "Less", [index, p + "cond/_1/map/while/Less/y", "^" + counter], **TI)
    g.node(p + "cond/_1/map/while/LogicalAnd", "LogicalAnd", [p + "cond/_1/map/while/Less_1", p + "cond/_1/map/while/Less"])
    g.node(p + "LoopCond/_2", "LoopCond", [p + "cond/_1/map/while/LogicalAnd"])
    for k, t in enumerate(types):
        g.node(f"{p}switch/_{30 + k}", "Switch", [f"{p}merge/_{20 + k}", p + "LoopCond/_2"], T={"type": t})
        g.node(f"{p}exit/_{50 + k}", "Exit", [f"{p}switch/_{30 + k}"], T={"type": t})
    g.node(p + "loop_body_control/_3", "Identity", [p + "switch/_30:1"], **TI)
    control = "^" + p + "loop_body_control/_3"
    g.node("Func/map/while/body/_4/input/_5", "Identity", [p + "switch/_32:1", control], **TI)
    i = "Func/map/while/body/_4/input/_5"
    b = p + "body/_4/map/while/"
    g.const(b + "TensorArrayV2Read/TensorListGetItem/element_shape", [3], I, [control])
    g.node(b + "TensorArrayV2Read/TensorListGetItem", "TensorListGetItem",
           [p + "switch/_34:1", i, b + "TensorArrayV2Read/TensorListGetItem/element_shape"], element_dtype={"type": F})
    g.const(b + "mul/y", 2.0, F, [control])
    g.node(b + "mul", "Mul", [b + "TensorArrayV2Read/TensorListGetItem", b + "mul/y"], **T)
    g.const(b + "add_2/y", 1.0, F, [control])
    g.node(b + "add_2", "AddV2", [b + "mul", b + "add_2/y"], **T)
    g.node(b + "TensorArrayV2Write/TensorListSetItem", "TensorListSetItem", [p + "switch/_33:1", i, b + "add_2"],
           element_dtype={"type": F})
    g.const(b + "add/y", 1, I, [control])
    g.node(b + "add", "AddV2", [i, b + "add/y"], **TI)
    g.const(b + "add_1/y", 1, I, [control])
    g.node(b + "add_1", "AddV2", [p + "switch/_30:1", b + "add_1/y"], **TI)
    nexts = [b + "add_1", p + "switch/_31:1", b + "add", b + "TensorArrayV2Write/TensorListSetItem", p + "switch/_34:1"]
    for k, (v, t) in enumerate(zip(nexts, types)):
        g.node(f"{p}next_iteration/_{40 + k}", "NextIteration", [v, control], T={"type": t})
    g.const("map/TensorArrayV2Stack/TensorListStack/element_shape", element_shape, I)
    g.node("map/TensorArrayV2Stack/TensorListStack", "TensorListStack",
           [p + "exit/_53", "map/TensorArrayV2Stack/TensorListStack/element_shape"], element_dtype={"type": F},
           num_elements={"i": "4"})
    g.node("Identity", "Identity", ["map/TensorArrayV2Stack/TensorListStack"], **T)
    write(out, g, [], ["x"], [("output_0", "Identity:0")])


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "tests/e2e/data/tf_control_flow"
    tf2_while(os.path.join(root, "tf2_while"))
    tf2_if(os.path.join(root, "tf2_if"), 1.0)
    tf2_if(os.path.join(root, "tf2_if_else"), -1.0)
    tf1_while(os.path.join(root, "tf1_while"))
    tf1_cond_graph(os.path.join(root, "tf1_cond"), 1.0)
    tf1_cond_graph(os.path.join(root, "tf1_cond_else"), -1.0)
    tf1_cond_in_while(os.path.join(root, "tf1_cond_in_while"))
    tf2_lowered_map_fn(os.path.join(root, "tf2_lowered_map_fn"), [3])
    tf2_lowered_map_fn(os.path.join(root, "tf2_lowered_map_fn_unknown_shape"), -1)
