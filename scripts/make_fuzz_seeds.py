#!/usr/bin/env python3
"""Writes the committed seed corpora of the fuzz targets (fuzz/seeds/<target>/) that the test
data cannot serve as they are: ONNX text models, an ONNX model with its external data, a small
TensorFlow GraphDef and TF.js model, IR pairs written by mo, command lines and configs. Inputs of
two files use fuzz_support.hpp's split(): a 4-byte little-endian length, the first file, the
second. The other targets take their seeds straight from the test data (scripts/fuzz.sh).

  /usr/bin/python3 scripts/make_fuzz_seeds.py [build/tools/mo]

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx) and protoc. Not run by CI.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from google.protobuf import json_format, text_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")
DATA = os.path.join(ROOT, "tests", "e2e", "data")


def pack(first, second):
    return struct.pack("<I", len(first)) + first + second


def write(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def onnx_text():
    for name in ("Gelu", "GroupQueryAttention", "MatMulNBits", "QLinearConcat", "Pad"):
        m = onnx.load(os.path.join(DATA, "contrib", name, "model.onnx"))
        write("onnx_text", name + ".prototxt", text_format.MessageToString(m))
    m = onnx.load(os.path.join(DATA, "control_flow", "recurrence", "model.onnx"))
    write("onnx_text", "loop.prototxt", text_format.MessageToString(m))


def onnx_external():
    d = os.path.join(DATA, "llm")
    write("onnx_external", "llm", pack(read(os.path.join(d, "model.onnx")), read(os.path.join(d, "model.onnx.data"))))


def tf_module(tmp):
    subprocess.run(["protoc", "-I", os.path.join(ROOT, "loaders", "tf"), "--python_out", tmp, "tf_graph.proto"], check=True)
    sys.path.insert(0, tmp)
    import tf_graph_pb2  # noqa: E402
    return tf_graph_pb2


def small_graph(tf):
    """x [1, 8, 8, 3] -> Conv2D 3x3x3x4 SAME -> BiasAdd -> Relu -> MaxPool 2x2 -> Reshape -> MatMul -> Softmax."""
    rng = np.random.default_rng(0)
    g = tf.GraphDef()

    def node(name, op, inputs=(), **attrs):
        n = g.node.add(name=name, op=op)
        n.input.extend(inputs)
        for k, v in attrs.items():
            n.attr[k].CopyFrom(v)
        return n

    def const(name, values):
        t = tf.TensorProto(dtype=tf.DT_FLOAT if values.dtype == np.float32 else tf.DT_INT32,
                           tensor_content=values.tobytes())
        for s in values.shape:
            t.tensor_shape.dim.add(size=s)
        return node(name, "Const", dtype=tf.AttrValue(type=t.dtype), value=tf.AttrValue(tensor=t))

    f32 = tf.AttrValue(type=tf.DT_FLOAT)
    shape = tf.TensorShapeProto()
    for s in (1, 8, 8, 3):
        shape.dim.add(size=s)
    node("x", "Placeholder", dtype=f32, shape=tf.AttrValue(shape=shape))
    const("w", rng.standard_normal([3, 3, 3, 4]).astype(np.float32))
    const("b", rng.standard_normal([4]).astype(np.float32))
    const("fc", rng.standard_normal([64, 5]).astype(np.float32))
    const("shape", np.array([1, 64], dtype=np.int32))
    ints = lambda v: tf.AttrValue(list=tf.AttrValue.ListValue(i=v))  # noqa: E731
    node("conv", "Conv2D", ["x", "w"], T=f32, strides=ints([1, 1, 1, 1]), padding=tf.AttrValue(s=b"SAME"),
         data_format=tf.AttrValue(s=b"NHWC"))
    node("bias", "BiasAdd", ["conv", "b"], T=f32)
    node("relu", "Relu", ["bias"], T=f32)
    node("pool", "MaxPool", ["relu"], T=f32, ksize=ints([1, 2, 2, 1]), strides=ints([1, 2, 2, 1]),
         padding=tf.AttrValue(s=b"VALID"))
    node("flat", "Reshape", ["pool", "shape"], T=f32)
    node("logits", "MatMul", ["flat", "fc"], T=f32)
    node("probs", "Softmax", ["logits"], T=f32)
    return g


def tensorflow(tf):
    g = small_graph(tf)
    write("tf", "small.pb", g.SerializeToString())
    # TF.js: the same graph with its constants' values moved into a weight shard.
    shard, weights = b"", []
    for n in g.node:
        if n.op == "Const":
            t = n.attr["value"].tensor
            weights.append({"name": n.name, "shape": [d.size for d in t.tensor_shape.dim],
                            "dtype": "float32" if t.dtype == tf.DT_FLOAT else "int32"})
            shard += t.tensor_content
            t.ClearField("tensor_content")
    model = {"format": "graph-model", "modelTopology": json_format.MessageToDict(g),
             "weightsManifest": [{"paths": ["weights.bin"], "weights": weights}]}
    write("tfjs", "small", pack(json.dumps(model).encode(), shard))


def ir(mo):
    cases = {
        "tiny_cnn": ([os.path.join(ROOT, "samples", "tiny_cnn.prototxt")], []),
        "matmul_nbits": ([os.path.join(DATA, "contrib", "MatMulNBits", "model.onnx")], []),
        "gqa": ([os.path.join(DATA, "contrib", "GroupQueryAttention", "model.onnx")], []),
        "loop": ([os.path.join(DATA, "control_flow", "recurrence", "model.onnx")], []),
        "if": ([os.path.join(DATA, "control_flow", "data_dependent_if", "model.onnx")], []),
        "int4_blocked": ([os.path.join(DATA, "qdq_int4", "int4_blocked", "model.onnx")], []),
        "stateful_llm": ([os.path.join(DATA, "llm", "model.onnx")], ["--transform", "MakeStateful"]),
    }
    for name, (model, flags) in cases.items():
        out = tempfile.mkdtemp()
        subprocess.run([mo, "--input_model", model[0], "--output_dir", out, "--model_name", "m"] + flags, check=True,
                       stdout=subprocess.DEVNULL)
        write("ir", name, pack(read(os.path.join(out, "m.xml")), read(os.path.join(out, "m.bin"))))
        shutil.rmtree(out)


def cli():
    lines = [
        ["--input_model", "m.onnx", "--output_dir", "out", "--compress_to_fp16=False"],
        ["--input_model", "m.onnx", "--input", "x[1,3,224,224]{f32},y[?,8]", "--output", "z"],
        ["--input_model", "m.onnx", "--mean_values", "x[123.7,116.3,103.5]", "--scale_values", "[58.4,57.1,57.4]",
         "--reverse_input_channels", "--layout", "nhwc->nchw"],
        ["--input_model", "m.tflite", "--batch", "4", "--static_shape", "--disable_nhwc_to_nchw"],
        ["--input_model", "m.onnx", "--transform", "MakeStateful[param_res_names={'a':'b'}]"],
        ["--input_model", "m.onnx", "--input", "x->[1.5,2]", "--validate", "--log_level", "DEBUG"],
        ["--input_model", "m.onnx", "--transformations_config", "c.json", "--extensions", "a.so,b"],
        ["--help"], ["--version"], ["--list_transformations"],
    ]
    for i, args in enumerate(lines):
        write("cli", "args_%d" % i, "\0".join(args))


def transformations_config():
    configs = {
        "replace": [{"id": "ReplaceSubgraphWithOp", "match_kind": "points",
                     "instances": {"start_points": ["bn"], "end_points": ["relu"]}, "custom_attributes": {"op": "Relu"}}],
        "scope": [{"id": "ReplaceSubgraphWithOp", "match_kind": "scope", "instances": ["conv", "pool"],
                   "custom_attributes": {"op": "Sigmoid"}}],
        "general": [{"id": "X", "match_kind": "general", "custom_attributes": {"x": 1.5, "k": [1, 2]}}],
    }
    for name, c in configs.items():
        write("transformations_config", name + ".json", json.dumps(c))
    shutil.copy(os.path.join(ROOT, "configs", "ssd.json"), os.path.join(SEEDS, "transformations_config", "ssd.json"))


def main():
    mo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tools", "mo")
    shutil.rmtree(SEEDS, ignore_errors=True)
    tmp = tempfile.mkdtemp()
    onnx_text()
    onnx_external()
    tensorflow(tf_module(tmp))
    ir(mo)
    cli()
    transformations_config()
    shutil.rmtree(tmp)
    for target in sorted(os.listdir(SEEDS)):
        files = os.listdir(os.path.join(SEEDS, target))
        size = sum(os.path.getsize(os.path.join(SEEDS, target, f)) for f in files)
        print("%-24s %3d files %8d bytes" % (target, len(files), size))


if __name__ == "__main__":
    main()
