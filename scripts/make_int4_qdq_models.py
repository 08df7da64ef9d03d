#!/usr/bin/env python3
"""Writes small ONNX models whose weights are 4-bit (opset 21 INT4 / UINT4 initializers) behind
DequantizeLinear -> MatMul, as ONNX Runtime's 4-bit QDQ quantization writes them: blocked along
K (block_size), and per output channel. DIR/<name>/model.onnx and input_0.npy; the reference
outputs come from ONNX Runtime itself: `node scripts/ort_outputs.js DIR/<name>`.

  /usr/bin/python3 scripts/make_int4_qdq_models.py tests/e2e/data/qdq_int4

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx; its onnx predates INT4,
so the 4-bit tensors are built by number and packed here: two values a byte, low nibble first).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

UINT4, INT4 = 21, 22  # TensorProto.DataType numbers of ONNX 1.16


def four_bit(name, values, signed):
    """An INT4 / UINT4 initializer of `values` (integers in range), packed low nibble first."""
    flat = (values.astype(np.int64).flatten() & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, 0)
    t = TensorProto(name=name, data_type=INT4 if signed else UINT4, dims=list(values.shape))
    t.raw_data = (flat[0::2] | (flat[1::2] << 4)).tobytes()
    return t


def model(rng, k, n, signed, block_size, with_zero_point):
    """x [2, 3, k] @ DequantizeLinear(w [k, n]): blocked along axis 0 when block_size is set,
    else per output column (axis 1)."""
    lo, hi = (-8, 8) if signed else (0, 16)
    inits = [four_bit("w", rng.integers(lo, hi, [k, n]), signed)]
    scale_shape = [k // block_size, n] if block_size else [n]
    inits.append(numpy_helper.from_array((0.02 + 0.05 * rng.random(scale_shape)).astype(np.float32), "scale"))
    names = ["w", "scale"]
    if with_zero_point:
        inits.append(four_bit("zero_point", rng.integers(lo, hi, scale_shape), signed))
        names.append("zero_point")
    attrs = {"axis": 0, "block_size": block_size} if block_size else {"axis": 1}
    nodes = [helper.make_node("DequantizeLinear", names, ["weights"], **attrs),
             helper.make_node("MatMul", ["x", "weights"], ["y"])]
    graph = helper.make_graph(nodes, "int4_matmul", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    return m, rng.standard_normal([2, 3, k]).astype(np.float32)


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(0)
    cases = {
        "int4_blocked": model(rng, 64, 8, signed=True, block_size=32, with_zero_point=True),
        "uint4_blocked_no_zero_point": model(rng, 128, 6, signed=False, block_size=64, with_zero_point=False),
        "uint4_per_channel": model(rng, 32, 8, signed=False, block_size=0, with_zero_point=True),
    }
    for name, (m, x) in cases.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        np.save(os.path.join(d, "input_0.npy"), x)
        print(d)


if __name__ == "__main__":
    main()
