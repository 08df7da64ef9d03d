#!/usr/bin/env python3
"""Writes one small ONNX model per ONNX Runtime contrib op (domain com.microsoft) that mo
decomposes, with a seeded input: DIR/<op>/model.onnx and input_0.npy. Their reference outputs
come from ONNX Runtime itself: `node scripts/ort_outputs.js DIR/<op>` for each. (BiasAdd is
left out: ONNX Runtime has no CPU kernel for it; a unit test checks it by hand.)

  /usr/bin/python3 scripts/make_contrib_models.py tests/e2e/data/contrib

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

SHAPE = [2, 3, 8]  # batch, sequence, hidden


def model(op, extra_inputs, attrs=None, outputs=("y",), domain="com.microsoft"):
    """x -> op(x, *constants) with `extra_inputs` as (name, array) initializers ('' = absent)."""
    inits, names = [], ["x"]
    for name, value in extra_inputs:
        if name:
            kind = np.int64 if value.dtype.kind == "i" else np.float32
            inits.append(numpy_helper.from_array(value.astype(kind), name))
        names.append(name)
    node = helper.make_node(op, names, list(outputs), domain=domain, **(attrs or {}))
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs if o]
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                              outs, initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m


def embed_layer_norm(rng, hidden):
    """BERT's embedding layer: int32 input_ids, segment_ids and mask as model inputs."""
    seq = [2, 5]
    inits = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in (
        ("word", rng.standard_normal([11, hidden])), ("position", rng.standard_normal([7, hidden])),
        ("segment", rng.standard_normal([2, hidden])), ("gamma", 1 + 0.1 * rng.standard_normal(hidden)),
        ("beta", rng.standard_normal(hidden)))]
    node = helper.make_node("EmbedLayerNormalization",
                            ["input_ids", "segment_ids", "word", "position", "segment", "gamma", "beta", "mask"],
                            ["y", "mask_index", "embedding_sum"], domain="com.microsoft", epsilon=1e-5)
    ints = [helper.make_tensor_value_info(n, TensorProto.INT32, seq) for n in ("input_ids", "segment_ids", "mask")]
    outs = [helper.make_tensor_value_info(n, t, None) for n, t in (
        ("y", TensorProto.FLOAT), ("mask_index", TensorProto.INT32), ("embedding_sum", TensorProto.FLOAT))]
    m = helper.make_model(helper.make_graph([node], "embed", ints, outs, initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    inputs = [rng.integers(0, 11, seq), rng.integers(0, 2, seq), np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])]
    return m, [a.astype(np.int32) for a in inputs]


def rotary_caches(half, positions=16):
    """cos / sin caches [positions, half] as initializers."""
    angles = np.outer(np.arange(positions), 1.0 / 10000 ** (np.arange(half) / half))
    return [numpy_helper.from_array(np.cos(angles).astype(np.float32), "cos_cache"),
            numpy_helper.from_array(np.sin(angles).astype(np.float32), "sin_cache")]


def rotary(rng, x_shape, heads=None, interleaved=0, half=4):
    """x and int64 position_ids [batch, sequence] as model inputs; cos/sin caches as constants.
    A `half` below head / 2 rotates only the first 2 * half values of each head."""
    batch, seq = x_shape[0], (x_shape[2] if len(x_shape) == 4 else x_shape[1])
    inits = rotary_caches(half)
    attrs = {"num_heads": heads} if heads else {}
    if interleaved:
        attrs["interleaved"] = 1
    if heads and 2 * half != x_shape[-1] // heads:
        attrs["rotary_embedding_dim"] = 2 * half
    node = helper.make_node("RotaryEmbedding", ["x", "position_ids", "cos_cache", "sin_cache"], ["y"],
                            domain="com.microsoft", **attrs)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
           helper.make_tensor_value_info("position_ids", TensorProto.INT64, [batch, seq])]
    m = helper.make_model(helper.make_graph([node], "rotary", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                            initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    positions = np.stack([np.arange(seq) + 3, np.arange(seq) + 7]).astype(np.int64)
    return m, [rng.standard_normal(x_shape).astype(np.float32), positions]


def attention(rng, masked, causal):
    """BERT-style Attention over x [2, 4, 8] (2 heads); with masked, an int32 [2, 4] mask input."""
    inits = [numpy_helper.from_array((0.5 * rng.standard_normal([8, 24])).astype(np.float32), "weights"),
             numpy_helper.from_array(rng.standard_normal(24).astype(np.float32), "bias")]
    node = helper.make_node("Attention", ["x", "weights", "bias"] + (["mask"] if masked else []), ["y"],
                            domain="com.microsoft", num_heads=2, unidirectional=int(causal))
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 8])]
    if masked:
        ins.append(helper.make_tensor_value_info("mask", TensorProto.INT32, [2, 4]))
    m = helper.make_model(helper.make_graph([node], "attention", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                            initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    inputs = [rng.standard_normal([2, 4, 8]).astype(np.float32)]
    if masked:
        inputs.append(np.array([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=np.int32))
    return m, inputs


def multi_head_attention(rng, cross):
    """Q, K, V as model inputs (2 heads); cross: K/V of another length, V of another width, a
    bias and an int32 key padding mask; otherwise one length, no bias, unidirectional."""
    lq, lk, hv = (4, 5, 6) if cross else (4, 4, 8)
    shapes = {"query": [2, lq, 8], "key": [2, lk, 8], "value": [2, lk, hv]}
    names = ["query", "key", "value"] + (["bias", "mask"] if cross else [])
    inits = [numpy_helper.from_array(rng.standard_normal(16 + hv).astype(np.float32), "bias")] if cross else []
    node = helper.make_node("MultiHeadAttention", names, ["y"], domain="com.microsoft", num_heads=2,
                            **({} if cross else {"unidirectional": 1}))
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in ("query", "key", "value")]
    if cross:
        ins.append(helper.make_tensor_value_info("mask", TensorProto.INT32, [2, lk]))
    m = helper.make_model(helper.make_graph([node], "mha", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                            initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    inputs = [rng.standard_normal(shapes[n]).astype(np.float32) for n in ("query", "key", "value")]
    if cross:
        inputs.append(np.array([[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]], dtype=np.int32))
    return m, inputs


def group_query_attention(rng, batch, seq, past, seqlens, packed=False, rotary=True, head=16, half=8, attrs=None):
    """GroupQueryAttention as ONNX Runtime GenAI's models use it: 4 query heads over 2 KV heads of
    `head` (ONNX Runtime's rotary kernel wants a multiple of 16), Q / K / V (or packed QKV) [batch, seq, hidden] and a BNSH past as model inputs, int32
    seqlens_k (per batch: total length - 1) and total_sequence_length, cos / sin caches."""
    heads, kv_heads = 4, 2
    hq, hkv = heads * head, kv_heads * head
    names = ["query", "key", "value"] if not packed else ["query", "", ""]
    names += ["past_key", "past_value", "seqlens_k", "total_sequence_length"]
    inits = []
    if rotary:
        names += ["cos_cache", "sin_cache"]
        inits = rotary_caches(half)
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_key", "present_value"], domain="com.microsoft",
                            num_heads=heads, kv_num_heads=kv_heads, do_rotary=int(rotary), **(attrs or {}))
    shapes = {"query": [batch, seq, hq + 2 * hkv if packed else hq], "key": [batch, seq, hkv],
              "value": [batch, seq, hkv], "past_key": [batch, kv_heads, past, head],
              "past_value": [batch, kv_heads, past, head]}
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in names[:5] if n]
    ins += [helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, [batch]),
            helper.make_tensor_value_info("total_sequence_length", TensorProto.INT32, [])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "present_key", "present_value")]
    m = helper.make_model(helper.make_graph([node], "gqa", ins, outs, initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    inputs = [rng.standard_normal(shapes[n]).astype(np.float32) for n in names[:5] if n]
    inputs += [np.array(seqlens, dtype=np.int32), np.array(past + seq, dtype=np.int32)]
    return m, inputs


def matmul_nbits(rng, with_zero_points, bits=4, k=64):
    """A [2, 3, k] times `bits`-bit weights W [8, k] in blocks of 32 (4 bits: two per byte); the
    last block is padded when 32 does not divide k, each row of zero points to whole bytes."""
    n, block = 8, 32
    blocks = -(-k // block)
    per_byte = 8 // bits
    zero_point_bytes = -(-blocks * bits // 8)
    inits = [numpy_helper.from_array(rng.integers(0, 256, [n, blocks, block // per_byte]).astype(np.uint8), "b"),
             numpy_helper.from_array((0.05 + 0.1 * rng.random(n * blocks)).astype(np.float32), "scales")]
    names = ["a", "b", "scales"]
    if with_zero_points:
        inits.append(numpy_helper.from_array(rng.integers(0, 256, [n * zero_point_bytes]).astype(np.uint8), "zero_points"))
        names.append("zero_points")
    else:
        inits.append(numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "bias"))
        names += ["", "", "bias"]
    node = helper.make_node("MatMulNBits", names, ["y"], domain="com.microsoft", K=k, N=n, bits=bits, block_size=block)
    m = helper.make_model(helper.make_graph([node], "nbits", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, k])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.standard_normal([2, 3, k]).astype(np.float32)]


def gather_block_quantized(rng, data_shape, bits=4, block=16, storage="uint8", zero_points=True, scale_type=np.float32,
                           gather_axis=0, indices_shape=(2, 3)):
    """GatherBlockQuantized of a constant table quantized along its last axis (logical width
    data_shape[-1]) in blocks of `block`, `bits` values stored as packed uint8 or as INT4 / UINT4
    (built by hand: Debian's onnx 1.12 predates those types); int64 indices as the model input."""
    width = data_shape[-1]
    lead = list(data_shape[:-1])
    blocks = width // block
    rows = int(np.prod(lead))
    levels = 1 << bits
    if storage == "uint8":
        codes = rng.integers(0, levels, [rows, width], dtype=np.uint8)
        per_byte = 8 // bits
        packed = np.zeros([rows, width // per_byte], dtype=np.uint8)
        for j in range(per_byte):
            packed |= (codes[:, j::per_byte] << (bits * j)).astype(np.uint8)
        data = numpy_helper.from_array(packed.reshape(lead + [width // per_byte]), "data")
    else:
        signed = storage == "int4"
        codes = rng.integers(-8 if signed else 0, 8 if signed else 16, [rows * width]).astype(np.int8)
        nibbles = (codes & 0xF).astype(np.uint8)
        data = TensorProto(name="data", data_type=22 if signed else 21, dims=lead + [width],
                           raw_data=(nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes())
    inits = [data, numpy_helper.from_array((0.02 + 0.05 * rng.random(lead + [blocks])).astype(scale_type), "scales")]
    names = ["data", "indices", "scales"]
    if zero_points:
        if storage == "uint8":  # each row of `blocks` values packed to whole bytes
            zp = rng.integers(0, levels, [rows, blocks], dtype=np.uint8)
            per_byte = 8 // bits
            row_bytes = -(-blocks * bits // 8)
            packed_zp = np.zeros([rows, row_bytes], dtype=np.uint8)
            for j in range(blocks):
                packed_zp[:, j // per_byte] |= (zp[:, j] << (bits * (j % per_byte))).astype(np.uint8)
            inits.append(numpy_helper.from_array(packed_zp.reshape(lead + [row_bytes]), "zero_points"))
        else:  # one per scale, packed in the scales' order
            signed = storage == "int4"
            zp = rng.integers(-2 if signed else 6, 3 if signed else 11, [rows * blocks]).astype(np.int8)
            nibbles = np.append(zp & 0xF, [0] * (len(zp) % 2)).astype(np.uint8)
            inits.append(TensorProto(name="zero_points", data_type=22 if signed else 21, dims=lead + [blocks],
                                     raw_data=(nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()))
        names.append("zero_points")
    attrs = {"block_size": block, "gather_axis": gather_axis, "quantize_axis": len(data_shape) - 1}
    if storage == "uint8":
        attrs["bits"] = bits
    node = helper.make_node("GatherBlockQuantized", names, ["y"], domain="com.microsoft", **attrs)
    out_type = TensorProto.FLOAT16 if scale_type == np.float16 else TensorProto.FLOAT
    m = helper.make_model(helper.make_graph([node], "gbq", [helper.make_tensor_value_info("indices", TensorProto.INT64, list(indices_shape))],
                                            [helper.make_tensor_value_info("y", out_type, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m, [rng.integers(0, data_shape[gather_axis], list(indices_shape)).astype(np.int64)]


def matmul_integer_to_float(rng):
    """uint8 A [2, 3, 16] (model input) times int8 B [16, 5], per-column b scale, zero points, bias."""
    inits = [numpy_helper.from_array(rng.integers(-128, 128, [16, 5]).astype(np.int8), "b"),
             numpy_helper.from_array(np.array(0.02, dtype=np.float32), "a_scale"),
             numpy_helper.from_array((0.01 + 0.01 * rng.random(5)).astype(np.float32), "b_scale"),
             numpy_helper.from_array(np.array(128, dtype=np.uint8), "a_zero_point"),
             numpy_helper.from_array(rng.integers(-3, 4, [5]).astype(np.int8), "b_zero_point"),
             numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "bias")]
    node = helper.make_node("MatMulIntegerToFloat", ["a", "b", "a_scale", "b_scale", "a_zero_point", "b_zero_point", "bias"],
                            ["y"], domain="com.microsoft")
    m = helper.make_model(helper.make_graph([node], "mmitf", [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 3, 16])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.integers(0, 256, [2, 3, 16]).astype(np.uint8)]


def qlinear(rng, op, quantized_inputs, attrs=None, out_scale=0.05, out_zero=128, out_type=np.uint8):
    """One QLinear* op: each quantized input is (shape, dtype, scale, zero point, constant?) — a
    model input unless constant; scales and zero points are initializers."""
    to_proto = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}
    names, inits, ins, feeds = [], [], [], []
    for i, (shape, dtype, scale, zero, constant) in enumerate(quantized_inputs):
        lo, hi = (0, 256) if dtype == np.uint8 else (-128, 128)
        values = rng.integers(lo, hi, shape).astype(dtype)
        x = "x%d" % i
        if constant:
            inits.append(numpy_helper.from_array(values, x))
        else:
            ins.append(helper.make_tensor_value_info(x, to_proto[dtype], shape))
            feeds.append(values)
        inits += [numpy_helper.from_array(np.array(scale, dtype=np.float32), x + "_scale"),
                  numpy_helper.from_array(np.array(zero, dtype=dtype), x + "_zero_point")]
        names += [x, x + "_scale", x + "_zero_point"]
    inits += [numpy_helper.from_array(np.array(out_scale, dtype=np.float32), "y_scale"),
              numpy_helper.from_array(np.array(out_zero, dtype=out_type), "y_zero_point")]
    names = (["y_scale", "y_zero_point"] + names) if op == "QLinearConcat" else (names + ["y_scale", "y_zero_point"])
    node = helper.make_node(op, names, ["y"], domain="com.microsoft", **(attrs or {}))
    m = helper.make_model(helper.make_graph([node], op.lower(), ins, [helper.make_tensor_value_info("y", to_proto[out_type], None)],
                                            initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, feeds


def dynamic_quantize_matmul(rng, signed):
    """f32 A [2, 3, 16] (model input) times 8-bit B [16, 5] with per-column scale and zero point, and a bias."""
    dtype, lo, hi = (np.int8, -128, 128) if signed else (np.uint8, 0, 256)
    inits = [numpy_helper.from_array(rng.integers(lo, hi, [16, 5]).astype(dtype), "b"),
             numpy_helper.from_array((0.01 + 0.01 * rng.random(5)).astype(np.float32), "b_scale"),
             numpy_helper.from_array(rng.integers(-3, 4, [5]).astype(dtype) if signed else
                                     rng.integers(120, 136, [5]).astype(dtype), "b_zero_point"),
             numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "bias")]
    node = helper.make_node("DynamicQuantizeMatMul", ["a", "b", "b_scale", "b_zero_point", "bias"], ["y"], domain="com.microsoft")
    m = helper.make_model(helper.make_graph([node], "dqmm", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 16])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.standard_normal([2, 3, 16]).astype(np.float32)]


def fused_conv(rng, activation, params, with_sum):
    """FusedConv over x [1, 3, 6, 6] (model input): 4 filters 3x3, pads 1, bias, [+ Z], activation."""
    inits = [numpy_helper.from_array((0.3 * rng.standard_normal([4, 3, 3, 3])).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")]
    names = ["x", "w", "b"]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])]
    feeds = [rng.standard_normal([1, 3, 6, 6]).astype(np.float32)]
    if with_sum:
        names.append("z")
        ins.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4, 6, 6]))
        feeds.append(rng.standard_normal([1, 4, 6, 6]).astype(np.float32))
    node = helper.make_node("FusedConv", names, ["y"], domain="com.microsoft", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            activation=activation, **({"activation_params": params} if params else {}))
    m = helper.make_model(helper.make_graph([node], "fused_conv", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                            initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, feeds


def fused_gemm(rng, activation, attrs):
    """FusedGemm: a [3, 5] (model input) times b [4, 5] (transB), c [4], alpha 0.5, activation."""
    inits = [numpy_helper.from_array(rng.standard_normal([4, 5]).astype(np.float32), "b"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "c")]
    node = helper.make_node("FusedGemm", ["a", "b", "c"], ["y"], domain="com.microsoft", transB=1, alpha=0.5,
                            activation=activation, **attrs)
    m = helper.make_model(helper.make_graph([node], "fused_gemm", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 5])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.standard_normal([3, 5]).astype(np.float32)]


def qgemm(rng, quantized_output):
    """QGemm: uint8 A [3, 8] (model input) times int8 B [5, 8] (transB) with per-column scales and
    zero points, int32 bias C, alpha 0.5; uint8 output with y_scale / y_zero_point, or f32."""
    inits = [numpy_helper.from_array(np.array(0.03, dtype=np.float32), "a_scale"),
             numpy_helper.from_array(np.array(120, dtype=np.uint8), "a_zero_point"),
             numpy_helper.from_array(rng.integers(-128, 128, [5, 8]).astype(np.int8), "b"),
             numpy_helper.from_array((0.01 + 0.01 * rng.random(5)).astype(np.float32), "b_scale"),
             numpy_helper.from_array(np.zeros(5, dtype=np.int8), "b_zero_point"),
             numpy_helper.from_array(rng.integers(-2000, 2000, [5]).astype(np.int32), "c")]
    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "c"]
    if quantized_output:
        inits += [numpy_helper.from_array(np.array(0.02, dtype=np.float32), "y_scale"),
                  numpy_helper.from_array(np.array(128, dtype=np.uint8), "y_zero_point")]
        names += ["y_scale", "y_zero_point"]
    node = helper.make_node("QGemm", names, ["y"], domain="com.microsoft", transB=1, alpha=0.5)
    out_type = TensorProto.UINT8 if quantized_output else TensorProto.FLOAT
    m = helper.make_model(helper.make_graph([node], "qgemm", [helper.make_tensor_value_info("a", TensorProto.UINT8, [3, 8])],
                                            [helper.make_tensor_value_info("y", out_type, None)], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.integers(0, 256, [3, 8]).astype(np.uint8)]


def attention_past(rng):
    """GPT-2's Attention as ONNX Runtime's optimizer writes it: x [2, 2, 8] (2 new tokens), 2 heads,
    unidirectional, a [2, 5] mask over past and new tokens, past [2, 2, 2, 3, 4] -> y and present."""
    inits = [numpy_helper.from_array((0.5 * rng.standard_normal([8, 24])).astype(np.float32), "weights"),
             numpy_helper.from_array(rng.standard_normal(24).astype(np.float32), "bias")]
    node = helper.make_node("Attention", ["x", "weights", "bias", "mask", "past"], ["y", "present"], domain="com.microsoft",
                            num_heads=2, unidirectional=1)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 8]),
           helper.make_tensor_value_info("mask", TensorProto.INT32, [2, 5]),
           helper.make_tensor_value_info("past", TensorProto.FLOAT, [2, 2, 2, 3, 4])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "present")]
    m = helper.make_model(helper.make_graph([node], "attention_past", ins, outs, initializer=inits),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [rng.standard_normal([2, 2, 8]).astype(np.float32), np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1]], dtype=np.int32),
               rng.standard_normal([2, 2, 2, 3, 4]).astype(np.float32)]


def contrib_range():
    """com.microsoft Range(start, limit) without delta (default 1): limit is the model input."""
    node = helper.make_node("Range", ["start", "limit"], ["y"], domain="com.microsoft")
    m = helper.make_model(helper.make_graph([node], "range", [helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                            initializer=[numpy_helper.from_array(np.array(2.5, dtype=np.float32), "start")]),
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m, [np.array(9.0, dtype=np.float32)]


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(0)
    hidden = SHAPE[-1]
    vec = lambda: rng.standard_normal(hidden)
    full = lambda: rng.standard_normal(SHAPE)
    cases = {
        "Gelu": model("Gelu", []),
        "BiasGelu": model("BiasGelu", [("bias", vec())]),
        "FastGelu": model("FastGelu", [("bias", vec())]),
        "QuickGelu": model("QuickGelu", [], {"alpha": 1.5}),
        "SkipLayerNormalization": model("SkipLayerNormalization",
                                        [("skip", full()), ("gamma", 1 + 0.1 * vec()), ("beta", vec()), ("bias", vec())],
                                        {"epsilon": 1e-5}, outputs=("y", "", "", "sum")),
        "SkipLayerNormalization_no_beta": model("SkipLayerNormalization", [("skip", full()), ("gamma", 1 + 0.1 * vec())]),
        "SkipSimplifiedLayerNormalization": model("SkipSimplifiedLayerNormalization",
                                                  [("skip", full()), ("gamma", 1 + 0.1 * vec()), ("bias", vec())],
                                                  {"epsilon": 1e-6}, outputs=("y", "", "", "sum")),
        "FusedMatMul": model("FusedMatMul", [("b", rng.standard_normal([2, 5, 8]))],
                             {"alpha": 0.5, "transA": 0, "transB": 1}),
        "FusedMatMul_transA": model("FusedMatMul", [("b", rng.standard_normal([2, 3, 4]))],
                                    {"alpha": 1.0, "transA": 1}),
        "Trilu": model("Trilu", [("k", np.array(1))], {"upper": 0}),
        "GatherND": model("GatherND", [("indices", np.array([[0, 1], [1, 2]]))]),
        # ONNX Runtime registers this one in the default domain, not com.microsoft.
        "SimplifiedLayerNormalization": model("SimplifiedLayerNormalization", [("scale", 1 + 0.1 * vec())],
                                              {"axis": -1, "epsilon": 1e-6}, domain=""),
    }
    for name, m in cases.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        np.save(os.path.join(d, "input_0.npy"), (2 * rng.standard_normal(SHAPE)).astype(np.float32))
        print(d)
    # Models with inputs of their own.
    for name, (m, inputs) in (("EmbedLayerNormalization", embed_layer_norm(rng, hidden)),
                              ("RotaryEmbedding", rotary(rng, [2, 3, 4, 8])),
                              ("RotaryEmbedding_3d", rotary(rng, [2, 4, 24], heads=3)),
                              ("Attention", attention(rng, masked=True, causal=False)),
                              ("Attention_causal", attention(rng, masked=False, causal=True)),
                              ("MultiHeadAttention", multi_head_attention(rng, cross=True)),
                              ("MultiHeadAttention_causal", multi_head_attention(rng, cross=False)),
                              ("MatMulNBits", matmul_nbits(rng, with_zero_points=True)),
                              ("MatMulNBits_bias", matmul_nbits(rng, with_zero_points=False)),
                              ("MatMulNBits_8bit", matmul_nbits(rng, with_zero_points=True, bits=8)),
                              ("MatMulIntegerToFloat", matmul_integer_to_float(rng)),
                              ("RotaryEmbedding_interleaved", rotary(rng, [2, 3, 3, 8], interleaved=1)),
                              ("RotaryEmbedding_partial", rotary(rng, [2, 4, 24], heads=2, half=2)),
                              ("GroupQueryAttention", group_query_attention(rng, 2, 1, 4, [4, 4])),
                              ("GroupQueryAttention_prompt", group_query_attention(rng, 2, 5, 0, [4, 4])),
                              ("GroupQueryAttention_packed", group_query_attention(
                                  rng, 1, 3, 2, [4], packed=True, rotary=False,
                                  attrs={"local_window_size": 2, "softcap": 2.0})),
                              ("GroupQueryAttention_interleaved", group_query_attention(
                                  rng, 1, 2, 3, [4], head=32, half=8, attrs={"rotary_interleaved": 1})),
                              ("GroupQueryAttention_scaled", group_query_attention(
                                  rng, 2, 3, 0, [2, 2], attrs={"scale": 0.2})),
                              # Entries of different lengths: a right-padded prompt, then a step
                              # whose second entry has 2 tokens of past in a cache of 4.
                              ("GroupQueryAttention_ragged_prompt", group_query_attention(rng, 2, 4, 0, [3, 1])),
                              ("GroupQueryAttention_ragged_decode", group_query_attention(rng, 2, 1, 4, [4, 2])),
                              ("MatMulNBits_odd_blocks", matmul_nbits(rng, with_zero_points=True, k=96)),
                              ("MatMulNBits_padded_k", matmul_nbits(rng, with_zero_points=True, k=80)),
                              ("QLinearAdd", qlinear(rng, "QLinearAdd", [([2, 3, 8], np.uint8, 0.03, 120, False),
                                                                         ([8], np.uint8, 0.02, 130, True)])),
                              ("QLinearMul", qlinear(rng, "QLinearMul", [([2, 3, 8], np.int8, 0.05, 3, False),
                                                                         ([2, 3, 8], np.int8, 0.04, -2, False)],
                                                     out_scale=0.1, out_zero=-5, out_type=np.int8)),
                              ("QLinearSigmoid", qlinear(rng, "QLinearSigmoid", [([2, 3, 8], np.uint8, 0.05, 128, False)],
                                                         out_scale=1 / 256, out_zero=0)),
                              ("QLinearLeakyRelu", qlinear(rng, "QLinearLeakyRelu", [([2, 3, 8], np.int8, 0.05, 10, False)],
                                                           {"alpha": 0.1}, out_scale=0.04, out_zero=-20, out_type=np.int8)),
                              ("QLinearConcat", qlinear(rng, "QLinearConcat", [([2, 3, 4], np.uint8, 0.03, 120, False),
                                                                               ([2, 2, 4], np.uint8, 0.05, 100, False)],
                                                        {"axis": 1})),
                              ("QLinearGlobalAveragePool", qlinear(rng, "QLinearGlobalAveragePool",
                                                                   [([1, 4, 5, 5], np.uint8, 0.05, 128, False)],
                                                                   out_scale=0.01, out_zero=128)),
                              ("QLinearAveragePool", qlinear(rng, "QLinearAveragePool", [([1, 2, 6, 6], np.uint8, 0.05, 128, False)],
                                                             {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
                                                             out_scale=0.02, out_zero=128)),
                              ("Range", contrib_range()),
                              # ONNX Runtime's Pad takes its pads as [1, 2 * rank] too.
                              ("Pad", (model("Pad", [("pads", np.array([[0, 1, 2, 1, 0, 3]])), ("value", np.array(0.5))]),
                                       [rng.standard_normal(SHAPE).astype(np.float32)])),
                              ("Pad_reflect", (model("Pad", [("pads", np.array([0, 2, 1, 0, 1, 2]))], {"mode": "reflect"}),
                                               [rng.standard_normal(SHAPE).astype(np.float32)])),
                              ("QLinearSoftmax", qlinear(rng, "QLinearSoftmax", [([2, 10], np.uint8, 0.1, 128, False)],
                                                         {"axis": -1, "opset": 13}, out_scale=1 / 256, out_zero=0)),
                              ("DynamicQuantizeMatMul", dynamic_quantize_matmul(rng, signed=True)),
                              ("DynamicQuantizeMatMul_uint8", dynamic_quantize_matmul(rng, signed=False)),
                              ("FusedConv", fused_conv(rng, "Relu", None, with_sum=True)),
                              ("FusedConv_clip", fused_conv(rng, "Clip", [-0.5, 0.7], with_sum=False)),
                              ("FusedConv_hard_sigmoid", fused_conv(rng, "HardSigmoid", [0.3, 0.4], with_sum=False)),
                              ("FusedGemm", fused_gemm(rng, "LeakyRelu", {"activation_alpha": 0.2})),
                              ("FusedGemm_tanh", fused_gemm(rng, "Tanh", {})),
                              ("QGemm", qgemm(rng, quantized_output=True)),
                              ("QGemm_float", qgemm(rng, quantized_output=False)),
                              ("MatMulNBits_2bit", matmul_nbits(rng, with_zero_points=True, bits=2, k=96)),
                              ("Attention_past", attention_past(rng)),
                              # ONNX Runtime's quantize_gather / GenAI's tied embeddings (packed uint8).
                              ("GatherBlockQuantized", gather_block_quantized(rng, [10, 32])),
                              ("GatherBlockQuantized_8bit", gather_block_quantized(rng, [10, 32], bits=8, zero_points=False)),
                              ("GatherBlockQuantized_2bit", gather_block_quantized(rng, [10, 64], bits=2, block=16)),
                              ("GatherBlockQuantized_int4", gather_block_quantized(rng, [3, 10, 48], storage="int4",
                                                                                   scale_type=np.float16, gather_axis=1)),
                              ("GatherBlockQuantized_uint4", gather_block_quantized(rng, [10, 64], block=32, storage="uint4",
                                                                                    zero_points=False))):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        for i, a in enumerate(inputs):
            np.save(os.path.join(d, "input_%d.npy" % i), a)
        print(d)


if __name__ == "__main__":
    main()
