#!/usr/bin/env python3
"""Writes an int4 decoder-only LLM shaped like the models of ONNX Runtime GenAI's model builder
(its CPU int4 Llama form): every projection and the LM head a com.microsoft MatMulNBits (4-bit,
block-wise scales and zero points), attention a GroupQueryAttention with rotary embedding
(do_rotary) and a KV cache, the norms SimplifiedLayerNormalization and
SkipSimplifiedLayerNormalization.

token embedding (f32) -> N x [norm, q/k/v MatMulNBits, GroupQueryAttention, o_proj, skip norm,
gate/up MatMulNBits, SiLU, down MatMulNBits] -> skip norm -> LM head. Inputs: input_ids [batch,
seq], attention_mask [batch, past+seq], past_key_values.{i}.key/value [batch, kv_heads, past,
head_dim]; outputs: logits and present.{i}.key/value. GroupQueryAttention's seqlens_k is
ReduceSum(attention_mask) - 1 and total_sequence_length the mask's width, as GenAI builds them.
The 4-bit weights, scales and zero points are random (the quantized form is what is measured,
not what it encodes); stored as external data.

  bench/make_genai_llm.py --out DIR [--layers 22] [--hidden 2048] [--heads 32] [--kv_heads 4]
                          [--ffn 5632] [--vocab 32000] [--block 32] [--mlp_block 128] [--seed 0]
                          [--form legacy|0.5|0.11|0.12|0.14|0.15|head_swa|cuda_fp16|dml_fp16|int8|
                                  tied_kquant|gather_int4] [--round_f16]

The defaults make a ~1.1 B-parameter model (TinyLlama's shape). --form legacy (the default) is
the form described above, which tests/e2e/data/llm_int4 and docs/quantization.md's 1.1 B figures
were made with; every other --form writes the graph of one GenAI release exactly as that release
writes it (bench/genai_forms.py lists the releases, files and functions and what differs), with
block 32 everywhere (--mlp_block is ignored) and writes form.json beside the model. --round_f16
rounds every f32 weight to f16 and back: the model --compress_to_fp16 makes, as ONNX, for
measuring the error f16 rounding alone causes; --accuracy_level 0 writes a copy whose
MatMulNBits ONNX Runtime computes in float (the references); --f32_copy writes an fp16 form's exact values as
an f32 graph, what that form's f16 arithmetic is measured against. An 8B-shaped model for bench/run_all.sh:

  bench/make_genai_llm.py --out /tmp/llm8b --form 0.15 --layers 32 --hidden 4096 --heads 32 \
      --kv_heads 8 --ffn 14336 --vocab 128256 --max_positions 8192

Needs python3 with numpy and onnx (Debian: python3-numpy python3-onnx). Not run by CI.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genai_forms  # noqa: E402
from make_llm import Builder, Weights  # noqa: E402

F32, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
MS = "com.microsoft"


def matmul_nbits(b, w, x, name, k, n, block):
    """x [.., k] times a random 4-bit [k, n] weight stored as MatMulNBits does: B [n, k / block,
    block / 2] (two values a byte, low nibble first), scales [n · k / block], zero points packed
    two a byte, each of the n rows padded to whole bytes."""
    if k % block:
        sys.exit("%s: K = %d must be a multiple of the block size %d" % (name, k, block))
    blocks = k // block
    weight = w.add(name + ".qweight", None, values=w.rng.integers(0, 256, [n, blocks, block // 2], dtype=np.uint8))
    scales = w.add(name + ".scales", None, values=(0.5 + w.rng.random(n * blocks, dtype=np.float32)) / (8 * math.sqrt(k)))
    zeros = w.add(name + ".qzeros", None, values=w.rng.integers(0, 256, [n * ((blocks + 1) // 2)], dtype=np.uint8))
    return b.op("MatMulNBits", [x, weight, scales, zeros], domain=MS, K=k, N=n, bits=4, block_size=block)


def gamma(w, name, hidden):
    return w.add(name, [hidden], values=1.0 + 0.1 * w.rng.standard_normal(hidden, dtype=np.float32))


def skip_norm(b, w, x, residual, name, hidden):
    """SkipSimplifiedLayerNormalization: (normed, sum) of x + residual."""
    outs = b.op("SkipSimplifiedLayerNormalization", [x, residual, gamma(w, name, hidden)], n_out=4, domain=MS,
                epsilon=1e-5)
    return outs[0], outs[3]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=22)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv_heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=5632)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--max_positions", type=int, default=2048)
    ap.add_argument("--block", type=int, default=32, help="block size of the attention projections and LM head")
    ap.add_argument("--mlp_block", type=int, default=128, help="block size of the MLP projections")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--form", default="legacy", choices=["legacy"] + list(genai_forms.FORMS))
    ap.add_argument("--round_f16", action="store_true", help="f32 weights rounded to f16 (with --form)")
    ap.add_argument("--f32_copy", action="store_true", help="an fp16 form's weights in an f32 graph (with --form)")
    ap.add_argument("--accuracy_level", type=int, help="MatMulNBits accuracy_level instead of the form's (with --form)")
    a = ap.parse_args()
    if a.form != "legacy":
        form = genai_forms.FORMS[a.form]
        if a.accuracy_level is not None:
            form = genai_forms.replace(form, accuracy_level=a.accuracy_level)
        info = genai_forms.write(a.out, form, layers=a.layers, hidden=a.hidden, heads=a.heads,
                                 kv_heads=a.kv_heads, ffn=a.ffn, vocab=a.vocab, max_positions=a.max_positions,
                                 block=a.block, seed=a.seed, round_f16=a.round_f16,
                                 f32_copy=a.f32_copy)
        info["form"] = a.form
        with open(os.path.join(a.out, "form.json"), "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: form %s (%s), %d layers, %.1f MB of weights" % (a.out, a.form, info["release"], a.layers,
                                                                   info["data_bytes"] / 1e6))
        return
    head = a.hidden // a.heads
    if a.hidden % a.heads or a.heads % a.kv_heads or head % 16:
        sys.exit("hidden must divide into heads of a multiple of 16 (ONNX Runtime's rotary kernel), heads into kv_heads")
    os.makedirs(a.out, exist_ok=True)
    w = Weights(a.out, "1", 0, a.seed)
    b = Builder()
    inputs = [helper.make_tensor_value_info("input_ids", I64, ["batch", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", I64, ["batch", "total_sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", F32, ["batch", "sequence_length", a.vocab])]

    # GenAI's attention inputs: per-entry lengths - 1 and the total length, both int32.
    lengths = b.op("ReduceSum", ["attention_mask", b.const([1])], keepdims=0)
    seqlens_k = b.op("Cast", [b.op("Sub", [lengths, b.const(1)])], to=I32)
    total = b.op("Cast", [b.op("Gather", [b.op("Shape", ["attention_mask"]), b.const(1)], axis=0)], to=I32)
    inv_freq = 1.0 / (10000 ** (np.arange(0, head, 2, dtype=np.float64) / head))
    angles = np.outer(np.arange(a.max_positions, dtype=np.float64), inv_freq)
    cos_cache = w.add("cos_cache", list(angles.shape), values=np.cos(angles))
    sin_cache = w.add("sin_cache", list(angles.shape), values=np.sin(angles))

    x = b.op("Gather", [w.add("model.embed_tokens.weight", [a.vocab, a.hidden], scale=1.0), "input_ids"], axis=0)
    residual = x
    h = b.op("SimplifiedLayerNormalization", [x, gamma(w, "model.layers.0.input_layernorm.weight", a.hidden)],
             axis=-1, epsilon=1e-5)
    for i in range(a.layers):
        p = "model.layers.%d." % i
        q = matmul_nbits(b, w, h, p + "attn.q_proj", a.hidden, a.heads * head, a.block)
        k = matmul_nbits(b, w, h, p + "attn.k_proj", a.hidden, a.kv_heads * head, a.block)
        v = matmul_nbits(b, w, h, p + "attn.v_proj", a.hidden, a.kv_heads * head, a.block)
        past = ["past_key_values.%d.%s" % (i, kind) for kind in ("key", "value")]
        present = ["present.%d.%s" % (i, kind) for kind in ("key", "value")]
        for name in past:
            inputs.append(helper.make_tensor_value_info(name, F32, ["batch", a.kv_heads, "past_sequence_length", head]))
        for name in present:
            outputs.append(helper.make_tensor_value_info(name, F32, ["batch", a.kv_heads, "total_sequence_length", head]))
        attn = b.op("GroupQueryAttention", [q, k, v] + past + [seqlens_k, total, cos_cache, sin_cache], n_out=3, domain=MS,
                    num_heads=a.heads, kv_num_heads=a.kv_heads, do_rotary=1, scale=1.0 / math.sqrt(head),
                    local_window_size=-1, rotary_interleaved=0)
        b.nodes[-1].output[1], b.nodes[-1].output[2] = present
        o = matmul_nbits(b, w, attn[0], p + "attn.o_proj", a.heads * head, a.hidden, a.block)
        h, residual = skip_norm(b, w, o, residual, p + "post_attention_layernorm.weight", a.hidden)
        gate = matmul_nbits(b, w, h, p + "mlp.gate_proj", a.hidden, a.ffn, a.mlp_block)
        up = matmul_nbits(b, w, h, p + "mlp.up_proj", a.hidden, a.ffn, a.mlp_block)
        act = b.op("Mul", [b.op("Mul", [gate, b.op("Sigmoid", [gate])]), up])
        down = matmul_nbits(b, w, act, p + "mlp.down_proj", a.ffn, a.hidden, a.mlp_block)
        norm_name = "model.layers.%d.input_layernorm.weight" % (i + 1) if i + 1 < a.layers else "model.norm.weight"
        h, residual = skip_norm(b, w, down, residual, norm_name, a.hidden)
    matmul_nbits(b, w, h, "lm_head", a.hidden, a.vocab, a.block)
    b.nodes[-1].output[0] = "logits"
    w.close()

    graph = helper.make_graph(b.nodes, "genai_decoder", inputs, outputs, initializer=b.consts + w.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
                              producer_name="mo-bench")
    model.ir_version = 8
    with open(os.path.join(a.out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    params = a.vocab * a.hidden * 2 + a.layers * (2 * a.hidden * a.heads * head + 2 * a.hidden * a.kv_heads * head
                                                 + 3 * a.hidden * a.ffn)
    print("%s: %d layers, %d nodes, %.2f B parameters, %.1f MB of weights" %
          (a.out, a.layers, len(b.nodes), params / 1e9, w.total / 1e6))


if __name__ == "__main__":
    main()
