#!/usr/bin/python3
"""Writes small TF.js graph models (model.json + weights.bin) in the form tfjs-converter 4.x
writes them, for tests/e2e/data/; their reference outputs come from TensorFlow.js itself:

    /usr/bin/python3 scripts/make_tfjs_models.py tests/e2e/data
    NODE_PATH=/work/npm/node_modules node scripts/tfjs_outputs.js --random tests/e2e/data/tfjs_fused_signature

tfjs_fused_signature: every fused op tfjs-converter writes into _FusedConv2D,
FusedDepthwiseConv2dNative and _FusedMatMul (tfjs-converter/python/tensorflowjs/converters/:
grappler's remapper gives [BiasAdd] / [BiasAdd, <activation>]; fuse_depthwise_conv2d.py writes
[BiasAdd] or [NoOp] then the activation Relu / Relu6 / Elu; fuse_prelu.py appends Prelu and its
alpha argument), in the argument order tfjs-core's fused kernels read (bias, then the PReLU
alpha), and a signature (tf_saved_model_conversion_v2.py: MessageToDict of the SignatureDef, at
the top of model.json) whose keys differ from the tensor names, lists the inputs in another
order than the graph and the outputs in another order than the sinks, one of the outputs feeding
another node.
"""
import base64
import json
import os
import sys

import numpy as np

rng = np.random.default_rng(25)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def ints(v):
    return {"list": {"i": [str(i) for i in v]}}


class Model:
    def __init__(self):
        self.nodes, self.weights, self.data = [], [], []

    def placeholder(self, name, shape):
        self.nodes.append({"name": name, "op": "Placeholder", "attr": {
            "dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": str(d)} for d in shape]}}}})
        return name

    def const(self, name, value):
        value = np.asarray(value, np.float32)
        self.nodes.append({"name": name, "op": "Const", "attr": {
            "dtype": {"type": "DT_FLOAT"},
            "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": str(d)} for d in value.shape]}}}}})
        self.weights.append({"name": name, "shape": list(value.shape), "dtype": "float32"})
        self.data.append(value.tobytes())
        return name

    def int_const(self, name, values):
        """An int32 constant: TF.js reads every Const from the weights, as the converter writes them."""
        v = np.asarray(values, np.int32)
        self.nodes.append({"name": name, "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}, "value": {"tensor": {
            "dtype": "DT_INT32", "tensorShape": {"dim": [{"size": str(d)} for d in v.shape]}}}}})
        self.weights.append({"name": name, "shape": list(v.shape), "dtype": "int32"})
        self.data.append(v.tobytes())
        return name

    def op(self, name, op, inputs, attr=None):
        self.nodes.append({"name": name, "op": op, "input": inputs, "attr": attr or {}})
        return name

    def fused_conv(self, name, x, cin, cout, fused, args, depthwise=False, alpha=None):
        """_FusedConv2D / FusedDepthwiseConv2dNative with `fused` ops and their argument values."""
        shape = [3, 3, cin, 1] if depthwise else [3, 3, cin, cout]
        w = self.const(name + "/filter", rng.normal(0, 0.4, shape))
        arg_names = [self.const(f"{name}/arg{i}", a) for i, a in enumerate(args)]
        attr = {"T": {"type": "DT_FLOAT"}, "strides": ints([1, 1, 1, 1]), "padding": {"s": b64("SAME")},
                "data_format": {"s": b64("NHWC")}, "dilations": ints([1, 1, 1, 1]),
                "fused_ops": {"list": {"s": [b64(f) for f in fused]}}, "num_args": {"i": str(len(args))},
                "explicit_paddings": {"list": {}}, "epsilon": {"f": 0}}
        if alpha is not None:
            attr["leakyrelu_alpha"] = {"f": alpha}
        if not depthwise:
            attr["use_cudnn_on_gpu"] = {"b": True}
        return self.op(name, "FusedDepthwiseConv2dNative" if depthwise else "_FusedConv2D", [x, w] + arg_names, attr)

    def write(self, out, signature):
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "weights.bin"), "wb") as f:
            f.write(b"".join(self.data))
        model = {"format": "graph-model", "generatedBy": "2.15.0", "convertedBy": "TensorFlow.js Converter v4.22.0",
                 "signature": signature,
                 "modelTopology": {"node": self.nodes, "library": {}, "versions": {"producer": 1645}},
                 "weightsManifest": [{"paths": ["weights.bin"], "weights": self.weights}]}
        with open(os.path.join(out, "model.json"), "w") as f:
            json.dump(model, f, indent=1)


def info(name, shape):
    return {"name": name, "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": str(d)} for d in shape]}}


def fused_signature(out):
    m = Model()
    x = m.placeholder("image", [1, 6, 6, 4])
    offset = m.placeholder("offset", [1, 1, 1, 8])
    c = 8
    vec = lambda: rng.normal(0, 0.3, [c])
    y1 = m.fused_conv("conv_prelu", x, 4, c, ["BiasAdd", "Prelu"], [vec(), rng.uniform(0, 0.5, [1, 1, c])])
    y2 = m.fused_conv("dw_noop_prelu", y1, c, c, ["NoOp", "Prelu"], [rng.uniform(0, 0.5, [c])], depthwise=True)
    y3 = m.fused_conv("conv_relu6", y2, c, c, ["BiasAdd", "Relu6"], [vec()])
    y4 = m.fused_conv("dw_elu", y3, c, c, ["BiasAdd", "Elu"], [vec()], depthwise=True)
    y5 = m.fused_conv("conv_leaky", y4, c, c, ["BiasAdd", "LeakyRelu"], [vec()], alpha=0.3)
    y6 = m.fused_conv("conv_sigmoid", y5, c, c, ["BiasAdd", "Sigmoid"], [vec()])
    y7 = m.fused_conv("conv_relu", y6, c, c, ["BiasAdd", "Relu"], [vec()])
    y8 = m.fused_conv("dw_relu", y7, c, c, ["BiasAdd", "Relu"], [vec()], depthwise=True)
    y9 = m.fused_conv("dw_bias_prelu", y8, c, c, ["BiasAdd", "Prelu"], [vec(), rng.uniform(0, 0.5, [c])], depthwise=True)
    s = m.op("shifted", "AddV2", [y9, offset], {"T": {"type": "DT_FLOAT"}})
    mean = m.op("pool", "Mean", [s, m.int_const("pool/axes", [1, 2])], {"keep_dims": {"b": False}, "T": {"type": "DT_FLOAT"}})
    w = m.const("dense/kernel", rng.normal(0, 0.4, [c, 5]))
    b = m.const("dense/bias", rng.normal(0, 0.3, [5]))
    a = m.const("dense/alpha", rng.uniform(0, 0.5, [5]))
    logits = m.op("dense", "_FusedMatMul", [mean, w, b, a], {
        "T": {"type": "DT_FLOAT"}, "transpose_a": {"b": False}, "transpose_b": {"b": False},
        "fused_ops": {"list": {"s": [b64("BiasAdd"), b64("Prelu")]}}, "num_args": {"i": "2"}, "epsilon": {"f": 0}})
    m.op("Identity", "Identity", [logits], {"T": {"type": "DT_FLOAT"}})
    m.write(out, {
        "inputs": {"offset_in": info("offset:0", [1, 1, 1, 8]), "image_in": info("image:0", [1, 6, 6, 4])},
        "outputs": {"logits": info("Identity:0", [1, 5]), "features": info("conv_relu6:0", [1, 6, 6, 8]),
                    "gate": info("conv_sigmoid:0", [1, 6, 6, 8])}})


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "tests/e2e/data"
    fused_signature(os.path.join(root, "tfjs_fused_signature"))
