#!/usr/bin/env python3
"""Writes a decoder-only transformer shaped like the ONNX exports of Llama / GPT-style models.

token embedding -> N x [norm, attention with rotary position embedding and a KV cache,
residual, norm, gated MLP, residual] -> final norm -> LM head. Inputs: input_ids [batch, seq],
attention_mask [batch, past+seq], position_ids [batch, seq], past_key_values.{i}.key/value
[batch, kv_heads, past, head_dim]; outputs: logits and present.{i}.key/value. Batch and sequence
dims are dynamic. Weights are random (not zeros, not sparse) and stored as ONNX external data,
in one file or in shards, written tensor by tensor so the generator never holds them all.

  bench/make_llm.py --out DIR [--size 12G | --layers N] [--hidden 3072] [--heads 24]
                    [--kv_heads 8] [--ffn 8192] [--vocab 32000] [--norm rms|layer]
                    [--act silu|gelu] [--shards 1|N|per_tensor] [--seed 0]

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx). Not run by CI.
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


class Weights:
    """Writes initializers to external data files, one tensor at a time."""

    def __init__(self, out_dir, shards, shard_bytes, seed):
        self.out_dir, self.shards, self.shard_bytes = out_dir, shards, shard_bytes
        self.rng = np.random.default_rng(seed)
        self.initializers, self.file, self.file_name, self.file_index, self.offset = [], None, None, 0, 0
        self.total = 0

    def _target(self, name, nbytes):
        if self.shards == "per_tensor" or self.file is None or (
                self.shards != "1" and self.offset + nbytes > self.shard_bytes and self.offset > 0):
            if self.file:
                self.file.close()
            self.file_name = (name.replace("/", "_") + ".bin") if self.shards == "per_tensor" else (
                "model.onnx.data" if self.shards == "1" else "model.onnx.data.%d" % self.file_index)
            self.file_index += 1
            self.file, self.offset = open(os.path.join(self.out_dir, self.file_name), "wb"), 0
        return self.file

    def add(self, name, shape, scale=None, values=None):
        """Random normal float32 weights of `shape`, or `values` (float32 unless they are uint8)."""
        if values is None:
            scale = scale if scale is not None else 1.0 / math.sqrt(shape[0])
            values = (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale))
        dtype = np.uint8 if np.asarray(values).dtype == np.uint8 else np.float32
        values = np.ascontiguousarray(values, dtype=dtype)
        f = self._target(name, values.nbytes)
        offset = self.offset
        f.write(values.tobytes())
        self.offset += values.nbytes
        self.total += values.nbytes
        t = TensorProto(name=name, data_type=TensorProto.UINT8 if dtype == np.uint8 else F32, dims=list(values.shape),
                        data_location=TensorProto.EXTERNAL)
        for k, v in (("location", self.file_name), ("offset", str(offset)), ("length", str(values.nbytes))):
            entry = t.external_data.add()
            entry.key, entry.value = k, v
        self.initializers.append(t)
        return name

    def close(self):
        if self.file:
            self.file.close()


class Builder:
    def __init__(self):
        self.nodes, self.consts, self.count = [], [], 0

    def op(self, op_type, inputs, n_out=1, **attrs):
        self.count += 1
        outs = ["%s_%d" % (op_type.lower(), self.count) + ("" if n_out == 1 else "_%d" % i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name="%s_%d" % (op_type, self.count), **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, values, dtype=np.int64):
        self.count += 1
        name = "const_%d" % self.count
        self.consts.append(helper.make_tensor(name, I64 if dtype == np.int64 else F32, np.shape(values),
                                              np.asarray(values, dtype=dtype).flatten().tolist()))
        return name


def norm(b, w, x, kind, prefix, hidden):
    gamma = w.add(prefix + ".weight", [hidden], values=1.0 + 0.1 * w.rng.standard_normal(hidden, dtype=np.float32))
    if kind == "layer":
        beta = w.add(prefix + ".bias", [hidden], values=0.1 * w.rng.standard_normal(hidden, dtype=np.float32))
        return b.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)
    # RMSNorm as exporters write it: x * 1/sqrt(mean(x^2) + eps) * gamma
    var = b.op("ReduceMean", [b.op("Pow", [x, b.const(2.0, np.float32)])], axes=[-1], keepdims=1)
    inv = b.op("Reciprocal", [b.op("Sqrt", [b.op("Add", [var, b.const(1e-6, np.float32)])])])
    return b.op("Mul", [b.op("Mul", [x, inv]), gamma])


def rotary(b, x, cos, sin, head_dim):
    """x [B, H, S, D]; cos/sin [B, 1, S, D]: x*cos + rotate_half(x)*sin."""
    half = head_dim // 2
    x1 = b.op("Slice", [x, b.const([0]), b.const([half]), b.const([-1])])
    x2 = b.op("Slice", [x, b.const([half]), b.const([head_dim]), b.const([-1])])
    rotated = b.op("Concat", [b.op("Neg", [x2]), x1], axis=-1)
    return b.op("Add", [b.op("Mul", [x, cos]), b.op("Mul", [rotated, sin])])


def attention(b, w, x, i, a, cos, sin, mask, inputs, outputs):
    d, h, kvh = a.hidden // a.heads, a.heads, a.kv_heads
    p = "model.layers.%d.self_attn." % i

    def project(name, out_features, heads):
        y = b.op("MatMul", [x, w.add(p + name + ".weight", [a.hidden, out_features])])
        y = b.op("Reshape", [y, b.const([0, 0, heads, d])])
        return b.op("Transpose", [y], perm=[0, 2, 1, 3])

    q = rotary(b, project("q_proj", h * d, h), cos, sin, d)
    k = rotary(b, project("k_proj", kvh * d, kvh), cos, sin, d)
    v = project("v_proj", kvh * d, kvh)
    cache = []
    for name, cur in (("key", k), ("value", v)):
        past = "past_key_values.%d.%s" % (i, name)
        inputs.append(helper.make_tensor_value_info(past, F32, ["batch", kvh, "past_sequence_length", d]))
        present = b.op("Concat", [past, cur], axis=2)
        b.nodes[-1].output[0] = "present.%d.%s" % (i, name)
        present = "present.%d.%s" % (i, name)
        outputs.append(helper.make_tensor_value_info(present, F32, ["batch", kvh, "total_sequence_length", d]))
        if kvh != h:  # grouped-query attention: repeat each KV head h/kvh times
            shape = b.op("Shape", [present])
            expanded = b.op("Concat", [b.op("Slice", [shape, b.const([0]), b.const([2]), b.const([0])]),
                                       b.const([h // kvh]),
                                       b.op("Slice", [shape, b.const([2]), b.const([4]), b.const([0])])], axis=0)
            rep = b.op("Expand", [b.op("Unsqueeze", [present, b.const([2])]), expanded])
            present = b.op("Reshape", [rep, b.const([0, h, -1, d])])
        cache.append(present)
    k_all, v_all = cache
    scores = b.op("MatMul", [q, b.op("Transpose", [k_all], perm=[0, 1, 3, 2])])
    scores = b.op("Add", [b.op("Div", [scores, b.const(math.sqrt(d), np.float32)]), mask])
    ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v_all])
    ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), b.const([0, 0, h * d])])
    return b.op("MatMul", [ctx, w.add(p + "o_proj.weight", [h * d, a.hidden])])


def mlp(b, w, x, i, a):
    p = "model.layers.%d.mlp." % i
    gate = b.op("MatMul", [x, w.add(p + "gate_proj.weight", [a.hidden, a.ffn])])
    up = b.op("MatMul", [x, w.add(p + "up_proj.weight", [a.hidden, a.ffn])])
    if a.act == "silu":
        act = b.op("Mul", [gate, b.op("Sigmoid", [gate])])
    else:  # exact GELU as PyTorch exports it: 0.5 x (1 + erf(x / sqrt 2))
        erf = b.op("Erf", [b.op("Div", [gate, b.const(math.sqrt(2.0), np.float32)])])
        act = b.op("Mul", [b.op("Mul", [gate, b.op("Add", [erf, b.const(1.0, np.float32)])]),
                           b.const(0.5, np.float32)])
    return b.op("MatMul", [b.op("Mul", [act, up]), w.add(p + "down_proj.weight", [a.ffn, a.hidden])])


def masks_and_rotary(b, w, a):
    """The additive causal + padding mask [B, 1, S, P+S] and rotary cos/sin [B, 1, S, D]."""
    d = a.hidden // a.heads
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2, dtype=np.float64) / d))
    freqs = np.outer(np.arange(a.max_positions, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos_table = w.add("model.rotary_emb.cos_cached", list(emb.shape), values=np.cos(emb))
    sin_table = w.add("model.rotary_emb.sin_cached", list(emb.shape), values=np.sin(emb))
    cos = b.op("Unsqueeze", [b.op("Gather", [cos_table, "position_ids"], axis=0), b.const([1])])
    sin = b.op("Unsqueeze", [b.op("Gather", [sin_table, "position_ids"], axis=0), b.const([1])])
    # key position j is visible from query position p when j <= p and attention_mask[j] == 1
    total = b.op("Gather", [b.op("Shape", ["attention_mask"]), b.const(1)], axis=0)
    key_pos = b.op("Range", [b.const(0), total, b.const(1)])
    causal = b.op("LessOrEqual", [key_pos, b.op("Unsqueeze", ["position_ids", b.const([2])])])  # [B, S, T]
    padded = b.op("Equal", ["attention_mask", b.const(1)])
    visible = b.op("And", [causal, b.op("Unsqueeze", [padded, b.const([1])])])
    mask = b.op("Where", [visible, b.const(0.0, np.float32), b.const(-1e9, np.float32)])
    return b.op("Unsqueeze", [mask, b.const([1])]), cos, sin


def block_bytes(a):
    d = a.hidden // a.heads
    attn = a.hidden * a.heads * d * 2 + a.hidden * a.kv_heads * d * 2
    return 4 * (attn + 3 * a.hidden * a.ffn + 2 * a.hidden * (2 if a.norm == "layer" else 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", help="target size of the weights (e.g. 100M, 12G); sets --layers")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=3072)
    ap.add_argument("--heads", type=int, default=24)
    ap.add_argument("--kv_heads", type=int, default=8)
    ap.add_argument("--ffn", type=int, default=8192)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--max_positions", type=int, default=2048)
    ap.add_argument("--norm", choices=["rms", "layer"], default="rms")
    ap.add_argument("--act", choices=["silu", "gelu"], default="silu")
    ap.add_argument("--shards", default="1", help="1 (one data file), per_tensor, or N files of about equal size")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.hidden % a.heads or a.heads % a.kv_heads or (a.hidden // a.heads) % 2:
        sys.exit("hidden must divide into heads of even size, and heads into kv_heads")
    fixed = 4 * (2 * a.vocab * a.hidden + 2 * a.max_positions * (a.hidden // a.heads) + a.hidden * 2)
    if a.size:
        a.layers = max(1, round((parse_size(a.size) - fixed) / block_bytes(a)))
    total = fixed + a.layers * block_bytes(a)
    shard_bytes = total // int(a.shards) + 1 if a.shards.isdigit() and int(a.shards) > 1 else 0
    os.makedirs(a.out, exist_ok=True)
    w = Weights(a.out, a.shards, shard_bytes, a.seed)
    b = Builder()
    inputs = [helper.make_tensor_value_info("input_ids", I64, ["batch", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", I64, ["batch", "total_sequence_length"]),
              helper.make_tensor_value_info("position_ids", I64, ["batch", "sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", F32, ["batch", "sequence_length", a.vocab])]

    embed = w.add("model.embed_tokens.weight", [a.vocab, a.hidden], scale=1.0)
    x = b.op("Gather", [embed, "input_ids"], axis=0)
    mask, cos, sin = masks_and_rotary(b, w, a)
    for i in range(a.layers):
        h = norm(b, w, x, a.norm, "model.layers.%d.input_layernorm" % i, a.hidden)
        x = b.op("Add", [x, attention(b, w, h, i, a, cos, sin, mask, inputs, outputs)])
        h = norm(b, w, x, a.norm, "model.layers.%d.post_attention_layernorm" % i, a.hidden)
        x = b.op("Add", [x, mlp(b, w, h, i, a)])
    x = norm(b, w, x, a.norm, "model.norm", a.hidden)
    b.op("MatMul", [x, w.add("lm_head.weight", [a.hidden, a.vocab])])
    b.nodes[-1].output[0] = "logits"
    w.close()

    graph = helper.make_graph(b.nodes, "decoder", inputs, outputs, initializer=b.consts + w.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="mo-bench")
    model.ir_version = 8
    with open(os.path.join(a.out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    print("%s: %d layers, %d nodes, %.1f MB of weights in %d file(s)" %
          (a.out, a.layers, len(b.nodes), w.total / 1e6, w.file_index))


if __name__ == "__main__":
    main()
