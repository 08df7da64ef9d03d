"""The graphs ONNX Runtime GenAI's model builder writes for a Llama-shaped int4 / int8 decoder,
release by release, and a writer that reproduces each of them (used by bench/make_genai_llm.py
--form NAME; the fixtures under tests/e2e/data/genai_<form>/ are written by
scripts/make_genai_fixtures.sh).

Sources: microsoft/onnxruntime-genai, src/python/py/models/builder.py (one file up to v0.11.2;
from v0.11.3 builder.py is the CLI and the graph code is builders/base.py, class Model), read at
the tags v0.5.0, v0.6.0, v0.7.0, v0.8.0, v0.9.0, v0.10.0, v0.11.0, v0.11.4, v0.12.0, v0.13.0,
v0.14.0, v0.15.0, v0.15.2 and main (a0c04eb, Aug 2026); and, for the int4 / int8 weights, ONNX
Runtime's quantizer the builder calls (onnxruntime/python/tools/quantization/
matmul_nbits_quantizer.py, formerly matmul_4bits_quantizer.py: DefaultWeightOnlyQuantizer
.quantize_matmul / .quantize_gather; neural_compressor/weight_only.py
make_matmul_weight_only_node for the rtn / k_quant algorithms).

What every release writes for a Llama-shaped model (LlamaModel adds nothing to Model):
* The float graph first, then Model.to_int4 / save_model hands it to ORT's quantizer
  (MatMul4BitsQuantizer, later MatMulNBitsQuantizer), which turns every MatMul with a constant
  2-D weight -- the LM head included -- into com.microsoft MatMulNBits(A, W_Q4, W_scales) with
  attributes K, N, bits, block_size (builder option int4_block_size, default 32) and
  accuracy_level. Symmetric by default (int4_is_symmetric=true): no zero-point input (the op's
  default, 8 for 4 bits and 128 for 8 bits, applies), W_Q4 uint8 [N, K/block, block/2] (two values
  a byte, low nibble first), scales [N·K/block] of the weights' float type, signed
  (MLAS's quantize_matmul_4bits: scale = signed max / -8). Names: initializer "<weight>_Q4",
  "<weight>_scales", node "<MatMul name>_Q4".
* Inputs: input_ids i64 [batch_size, sequence_length], attention_mask i64 [batch_size,
  total_sequence_length], past_key_values.N.key / .value [batch_size, kv_heads,
  past_sequence_length, head]; outputs logits [batch_size, sequence_length, vocab] and
  present.N.key / .value [batch_size, kv_heads, total_sequence_length, head] (make_inputs_and_outputs).
* Attention-mask sub-graph (make_attention_mask_reformatting_for_gqa): seqlens_k =
  Cast<int32>(ReduceSum(attention_mask, axes=[1]) - [1]); total_sequence_length =
  Cast<int32>(Gather(Shape(attention_mask), 1)), a scalar. Constants are Constant nodes named
  /model/constants/<dtype>/<value>.
* Embedding: Gather(model.embed_tokens.weight, input_ids) (make_embedding), io dtype.
* Norms: the first input_layernorm SimplifiedLayerNormalization (domain "", epsilon, axis=-1,
  stash_type=1); every later norm com.microsoft SkipSimplifiedLayerNormalization(residual,
  branch, gamma) (epsilon), outputs [normed, "", "", residual sum]; the final norm writes
  output 0 only (make_layernorm).
* Attention (make_attention, make_group_query_attention): on CPU and CUDA one packed
  qkv_proj MatMul (use_packed_matmul: every EP but DML), GroupQueryAttention(qkv, "", "", past_key,
  past_value, seqlens_k, total_sequence_length, cos_cache, sin_cache) with num_heads,
  kv_num_heads, scale = 1/sqrt(head), softcap = 0, do_rotary = 1, rotary_interleaved = 0;
  cos_cache / sin_cache [max_position_embeddings, head / 2] (make_rotary_embedding_caches), no
  position_ids input. Then o_proj MatMul.
* MLP (make_mlp_proj): gate and up MatMul, Sigmoid + Mul (SiLU, make_activation_with_mul), Mul,
  down MatMul. LM head: MatMul straight into "logits" (make_lm_head).

What differs (release: file, function):
* ONNX opset / IR version: 0.5-0.8 builder.py save_model: opset 14 (21 with use_qdq), IR 7,
  onnx.helper; 0.9+ the onnx_ir graph, Model.__init__: opset 21, IR 10.
* accuracy_level: 0.5-0.6 quant_attrs int4_accuracy_level default 0 (and ORT's quantizer of that
  time still wrote accuracy_level=0); 0.7+ default 4 on CPU (0.9+: CPU and WebGPU), 0 elsewhere;
  ORT's quantizer leaves the attribute out when 0. Level 4 lets ORT's CPU kernel quantize the
  activations to int8 per block; the weights and the graph are the same.
* ReduceSum keepdims: up to v0.11.2 (builder.py make_attention_mask_reformatting_for_gqa /
  make_attention_mask_standard_reformatting_for_gqa) keepdims is 1 (attribute absent up to 0.9,
  make_reduce_sum(keepdims=True) written from 0.10), so seqlens_k is [batch_size, 1]; from v0.11.3
  (builders/base.py make_reduce_sum(keepdims=False)) it is [batch_size].
* GroupQueryAttention attributes and inputs: 0.5-0.7 no local_window_size (commented out);
  0.8+ local_window_size = config.sliding_window or -1. 0.11.x: two trailing "" inputs
  (position_ids, attention_bias); 0.13+: three ("", "", sinks "").
* KV input / output order: up to 0.12 interleaved per layer (past_key_values.0.key,
  past_key_values.0.value, past_key_values.1.key, ...; make_inputs_and_outputs loops over
  layers); 0.13+ input_names / output_names are dicts of lists, so all keys come first, then all
  values (past_key_values.0.key, past_key_values.1.key, ..., past_key_values.0.value, ...).
* KV last dim: up to 0.14 the head size; 0.15+ the symbolic "kv_cache_dim" on past and present
  (input_shapes / output_shapes, "a single export serves both non-quantized and quantized KV
  caches").
* Sliding-window models on CPU (main: base.py get_attention_op_attributes,
  EPS_WITH_WINDOWED_KV_CACHE = {trt-rtx, cuda, cpu}): GroupQueryAttention gets
  local_window_size = sliding_window and sliding_window_cache = 1; GenAI then allocates a cache
  of window + slack positions only (kv_cache.cpp ComputeWindowedKvCacheSize, slack 16 on CPU),
  past and present being that same fixed-size buffer. Layers of models with alternating
  attention (is_local) name their sequence dims past_sliding_length / total_sliding_length
  (make_key_value_cache_shape); a Mistral-shaped model windows every layer.
* fp16 exports (set_io_dtype: int4 on any EP but CPU, webgpu without use_webgpu_fp32): every
  activation, input, output, weight, norm gamma, cos / sin cache and MatMulNBits scale is f16.
  DML (is_fused_rope_supported false, use_packed_matmul false): separate q_proj / k_proj /
  v_proj MatMulNBits, com.microsoft RotaryEmbedding(x, position_ids, cos_cache, sin_cache)
  (interleaved = 0, num_heads = 0, rotary_embedding_dim = 0) on q and k before
  GroupQueryAttention (do_rotary = 0, no cos / sin inputs), and the position_ids input
  i64 [batch_size, sequence_length].
* -p int8 (0.15+, quantize_to_8bits): MatMulNBits bits = 8, W_Q8 [N, K/block, block], MLAS's
  symmetric 8-bit (values offset by 128, signed scales), no zero points; io f32 on CPU.
* Quantized embeddings: tied (0.10-0.11 int4_tied_embeddings with int4_algo_config k_quant_mixed /
  k_quant_last; main shared_embeddings = tie_word_embeddings, make_embedding /
  make_tied_quantized_embedding_input_names): com.microsoft GatherBlockQuantized(Reshape(
  lm_head.MatMul.weight_Q4G32, [vocab, hidden·bits/8]), input_ids, lm_head.MatMul.weight_scale,
  lm_head.MatMul.weight_zp) with bits, block_size, gather_axis = 0, quantize_axis = 1 (main); the
  k_quant / rtn quantizer (make_matmul_weight_only_node) names weights _Q4G32, scales _scale
  [N, K/block], zero points _zp [N, ceil(K/block/2)]. Untied with op_types_to_quantize
  MatMul/Gather: ORT's quantize_gather writes GatherBlockQuantized(W_Q4 INT4 [vocab, hidden],
  input_ids, W_scales [vocab, hidden/block]) with gather_axis, quantize_axis = 1, block_size.
  Tied unquantized (main): Gather(Transpose(lm_head.MatMul.weight)).
* Casts: none in a Llama-shaped f32 / f16 graph but the mask sub-graph's; models with
  layernorm_attrs.cast.use_fp32 (Gemma) wrap norms in Casts, bf16 exports cast logits to f32.
Not reproduced here: QDQ (use_qdq), LoRA, MoE, PagedAttention, CUDA graph capture, the
matmulnbits_weights_prepacked CUDA layout (weight_prepacked attribute; off by default).
"""
import math
import os
from dataclasses import dataclass, field, replace

import numpy as np
from onnx import TensorProto, helper

F32, F16, I64, I32, U8 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.INT32, TensorProto.UINT8
INT4 = 22  # TensorProto.INT4 (ONNX 1.16+; Debian's onnx 1.12 does not name it)
MS = "com.microsoft"


@dataclass(frozen=True)
class Form:
    """One release's graph for one (precision, execution provider)."""
    release: str                 # the releases that write it
    opset: int = 21
    ir_version: int = 10
    keepdims: object = 0         # ReduceSum keepdims: None (absent, so 1), 1 or 0
    grouped_kv: bool = True      # all past keys, then all past values (0.13+)
    kv_cache_dim: bool = True    # symbolic last KV dim (0.15+)
    local_window_attr: bool = True   # GroupQueryAttention writes local_window_size (0.8+)
    gqa_trailing: int = 3        # trailing "" inputs of GroupQueryAttention
    accuracy_level: object = 4   # None: attribute absent
    io: int = F32
    packed_qkv: bool = True
    rotary_in_attention: bool = True  # False: RotaryEmbedding ops and a position_ids input (DML)
    bits: int = 4
    embedding: str = "float"     # float | tied_kquant | gather_int4
    window: int = 0              # sliding window (with sliding_window_cache=1)
    notes: str = ""


FORMS = {
    # builder.py v0.5.0-v0.6.0 (onnx.helper, opset 14), CPU int4.
    "0.5": Form("v0.5.0-v0.6.0 (CPU int4)", opset=14, ir_version=7, keepdims=None, grouped_kv=False,
                kv_cache_dim=False, local_window_attr=False, gqa_trailing=0, accuracy_level=0),
    # builder.py v0.10.0-v0.11.2 (onnx_ir, opset 21), CPU int4.
    "0.11": Form("v0.7.0-v0.11.2 (CPU int4; written as v0.11.0)", keepdims=1, grouped_kv=False, kv_cache_dim=False,
                 gqa_trailing=2),
    # builders/base.py v0.11.3-v0.12.x, CPU int4.
    "0.12": Form("v0.11.3-v0.12.2 (CPU int4)", grouped_kv=False, kv_cache_dim=False, gqa_trailing=2),
    # builders/base.py v0.13.0-v0.14.0, CPU int4.
    "0.14": Form("v0.13.0-v0.14.0 (CPU int4)", kv_cache_dim=False),
    # builders/base.py v0.15.0-v0.15.2, CPU int4.
    "0.15": Form("v0.15.0-v0.15.2 and main (CPU int4)"),
    # main, a Mistral-shaped model with sliding_window on CPU.
    "head_swa": Form("main (CPU int4, sliding_window: sliding_window_cache=1)", window=3),
    # -p int4 -e cuda, v0.15.
    "cuda_fp16": Form("v0.15.0+ -p int4 -e cuda (fp16)", io=F16, accuracy_level=None),
    # -p int4 -e dml, v0.15.
    "dml_fp16": Form("v0.15.0+ -p int4 -e dml (fp16)", io=F16, accuracy_level=None, packed_qkv=False,
                     rotary_in_attention=False),
    # -p int8 -e cpu, v0.15.
    "int8": Form("v0.15.0+ -p int8 -e cpu", bits=8),
    # main, tie_word_embeddings with int4_algo_config=k_quant: GatherBlockQuantized over the LM head.
    "tied_kquant": Form("main shared_embeddings (tied) + k_quant (CPU int4)", embedding="tied_kquant"),
    # main, op_types_to_quantize=MatMul/Gather (untied): GatherBlockQuantized of INT4 data.
    "gather_int4": Form("main op_types_to_quantize=MatMul/Gather (CPU int4)", embedding="gather_int4"),
}


def np_dtype(onnx_type):
    return np.float16 if onnx_type == F16 else np.float32


class Writer:
    """Initializers to one external data file (model.onnx.data), one tensor at a time; small
    constants as Constant nodes, as the builder's make_constant writes them."""

    def __init__(self, out_dir, seed, round_f16=False, f32_copy=False):
        self.out_dir, self.rng, self.round_f16, self.f32_copy = out_dir, np.random.default_rng(seed), round_f16, f32_copy
        self.nodes, self.initializers, self.value_infos, self.constants = [], [], [], set()
        self.file = open(os.path.join(out_dir, "model.onnx.data"), "wb")
        self.offset = 0

    def add(self, name, values, onnx_type=None, dims=None):
        """An external initializer; values a numpy array (written as is) or raw bytes with type and dims."""
        if onnx_type is None:
            values = np.ascontiguousarray(values)
            if self.round_f16 and values.dtype == np.float32:  # the reference copy of --compress_to_fp16
                values = values.astype(np.float16).astype(np.float32)
            if self.f32_copy and values.dtype == np.float16:  # an f16 model's values, computed in f32
                values = values.astype(np.float32)
            onnx_type = {np.dtype(np.float32): F32, np.dtype(np.float16): F16, np.dtype(np.uint8): U8,
                         np.dtype(np.int64): I64}[values.dtype]
            dims, data = list(values.shape), values.tobytes()
        else:
            data = bytes(values)
        self.file.write(data)
        t = TensorProto(name=name, data_type=onnx_type, dims=dims)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "model.onnx.data"), ("offset", str(self.offset)), ("length", str(len(data)))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += len(data)
        self.initializers.append(t)
        return name

    def node(self, op_type, name, inputs, outputs=None, domain=None, **attrs):
        outputs = outputs or [name + "/output_0"]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def constant(self, name, value, onnx_type):
        """A Constant node named like the builder's /model/constants/<dtype>/<value>."""
        if name not in self.constants:
            self.constants.add(name)
            arr = np.array(value, dtype={I64: np.int64, I32: np.int32, F32: np.float32, F16: np.float16}[onnx_type])
            self.nodes.append(helper.make_node("Constant", [], [name], name=name.replace("constants", "constant_nodes"),
                                               value=helper.make_tensor(name, onnx_type, arr.shape,
                                                                        arr.tobytes(), raw=True)))
        return name

    def close(self):
        self.file.close()


def pack_nibbles(codes):
    """uint8 values 0..15 along the last axis -> two a byte, low nibble first."""
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


class Quantizer:
    """Random quantized weights in the layouts ORT's quantizers write (the values are random; the
    layout, names and attributes are what is reproduced)."""

    def __init__(self, w, form, block):
        self.w, self.form, self.block = w, form, block

    def scales(self, n, blocks, k, levels):
        # signed, as MLAS's symmetric scales; sized so that W @ x keeps the scale of x.
        spread = math.sqrt((levels * levels - 1) / 12.0)
        s = (0.5 + self.w.rng.random((n, blocks))) / (spread * math.sqrt(k))
        return (s * self.w.rng.choice([-1.0, 1.0], size=(n, blocks))).astype(np_dtype(self.form.io))

    def matmul(self, x, name, k, n, output=None, kquant=False):
        """MatMulNBits as DefaultWeightOnlyQuantizer.quantize_matmul (or, kquant, as
        make_matmul_weight_only_node) writes it for the MatMul `name` with weight name[1:] + .weight."""
        w, bits, block = self.w, self.form.bits, self.block
        blocks = -(-k // block)
        weight = name[1:].replace("/", ".") + ".weight"
        levels = 1 << bits
        codes = w.rng.integers(0, levels, size=(n, blocks, block), dtype=np.uint8)
        packed = pack_nibbles(codes) if bits == 4 else codes
        scales = self.scales(n, blocks, k, levels)
        if kquant:
            qname, sname = weight + "_Q%dG%d" % (bits, block), weight + "_scale"
            zp = w.rng.integers(levels // 2 - 2, levels // 2 + 2, size=(n, blocks), dtype=np.uint8)
            if bits == 4:
                zp = pack_nibbles(np.pad(zp, ((0, 0), (0, blocks % 2)), constant_values=8))
            inputs = [x, w.add(qname, packed), w.add(sname, scales), w.add(weight + "_zp", zp)]
        else:
            qname, sname = weight + "_Q%d" % bits, weight + "_scales"
            inputs = [x, w.add(qname, packed), w.add(sname, scales.reshape(-1))]
        attrs = dict(K=k, N=n, bits=bits, block_size=block)
        if self.form.accuracy_level is not None:
            attrs["accuracy_level"] = self.form.accuracy_level
        return w.node("MatMulNBits", name + "_Q%d" % bits, inputs, [output] if output else None, domain=MS, **attrs)


def write(out_dir, form, layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, vocab=128, max_positions=64, block=32,
          seed=0, round_f16=False, f32_copy=False):
    """Writes out_dir/model.onnx and model.onnx.data in `form` (a Form); returns a description.
    round_f16: every f32 weight rounded to f16 (what --compress_to_fp16 keeps); f32_copy: an f16
    form's exact weights in an f32 graph (what f16 arithmetic is measured against)."""
    head = hidden // heads
    if hidden % heads or heads % kv_heads or head % 16:
        raise ValueError("hidden must divide into heads of a multiple of 16 (ONNX Runtime's rotary kernel)")
    os.makedirs(out_dir, exist_ok=True)
    npio = np_dtype(form.io)  # the values' type; the graph's is io
    io = F32 if f32_copy else form.io
    w = Writer(out_dir, seed, round_f16, f32_copy)
    q = Quantizer(w, form, block)
    kquant = form.embedding == "tied_kquant"

    def c64(value):
        if form.opset < 21:  # builder.py <= 0.8: /model/constants/{TensorProto dtype}/{0D|1D}/{value}
            name = "/model/constants/TensorProto.INT64/%s/%s" % (
                ("1D", ", ".join(map(str, value))) if isinstance(value, list) else ("0D", value))
        else:
            name = "/model/constants/INT64/%s" % (value,)
        return w.constant(name, value, I64)

    # Graph inputs and outputs (make_inputs_and_outputs).
    kv_last = "kv_cache_dim" if form.kv_cache_dim else head
    past_dims = ["batch_size", kv_heads, "past_sequence_length", kv_last]
    present_dims = ["batch_size", kv_heads, "total_sequence_length", kv_last]
    inputs = [helper.make_tensor_value_info("input_ids", I64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", I64, ["batch_size", "total_sequence_length"])]
    if not form.rotary_in_attention:
        inputs.append(helper.make_tensor_value_info("position_ids", I64, ["batch_size", "sequence_length"]))
    outputs = [helper.make_tensor_value_info("logits", io, ["batch_size", "sequence_length", vocab])]
    kinds = ("key", "value")
    order = ([(i, kind) for kind in kinds for i in range(layers)] if form.grouped_kv
             else [(i, kind) for i in range(layers) for kind in kinds])
    for i, kind in order:
        inputs.append(helper.make_tensor_value_info("past_key_values.%d.%s" % (i, kind), io, past_dims))
        outputs.append(helper.make_tensor_value_info("present.%d.%s" % (i, kind), io, present_dims))

    # Attention-mask sub-graph (make_attention_mask_reformatting_for_gqa).
    base = "/model/attn_mask_reformat/attn_mask_subgraph"
    reduce_attrs = {} if form.keepdims is None else {"keepdims": form.keepdims}
    total = w.node("ReduceSum", base + "/ReduceSum", ["attention_mask", c64([1])], **reduce_attrs)
    sub = w.node("Sub", base + "/Sub", [total, c64([1])])
    seqlens_k = w.node("Cast", base + "/Sub/Cast", [sub], to=I32)
    shape = w.node("Shape", base + "/Shape", ["attention_mask"])
    gathered = w.node("Gather", base + "/Gather", [shape, c64(1)], axis=0)
    total_seq_len = w.node("Cast", base + "/Gather/Cast", [gathered], to=I32)

    # Rotary caches [max_positions, head / 2] (make_rotary_embedding_caches).
    inv_freq = 1.0 / (10000 ** (np.arange(0, head, 2, dtype=np.float64) / head))
    angles = np.outer(np.arange(max_positions, dtype=np.float64), inv_freq)
    cos_cache = w.add("cos_cache", np.cos(angles).astype(npio))
    sin_cache = w.add("sin_cache", np.sin(angles).astype(npio))

    # Embedding (make_embedding).
    lm_head_name = "/lm_head/MatMul"
    if form.embedding == "float":
        table = w.add("model.embed_tokens.weight", w.rng.standard_normal((vocab, hidden)).astype(npio))
        x = w.node("Gather", "/model/embed_tokens/Gather", [table, "input_ids"])
    elif form.embedding == "tied_kquant":
        # The LM head's k_quant weights, written by the quantizer below; the embedding reads them.
        packed = w.node("Reshape", "/model/embed_tokens/Reshape",
                        ["lm_head.MatMul.weight_Q4G%d" % block, c64([vocab, hidden * form.bits // 8])])
        x = w.node("GatherBlockQuantized", "/model/embed_tokens/GatherBlockQuantized",
                   [packed, "input_ids", "lm_head.MatMul.weight_scale", "lm_head.MatMul.weight_zp"], domain=MS,
                   bits=form.bits, block_size=block, gather_axis=0, quantize_axis=1)
    elif form.embedding == "gather_int4":
        blocks = hidden // block
        codes = w.rng.integers(-8, 8, size=(vocab, hidden), dtype=np.int8)
        scales = (0.5 + w.rng.random((vocab, blocks))) / 4.0 * w.rng.choice([-1.0, 1.0], size=(vocab, blocks))
        data = pack_nibbles((codes & 0xF).astype(np.uint8))
        qdata = w.add("model.embed_tokens.weight_Q4", data.tobytes(), INT4, [vocab, hidden])
        x = w.node("GatherBlockQuantized", "/model/embed_tokens/Gather_Q4",
                   [qdata, "input_ids", w.add("model.embed_tokens.weight_scales", scales.astype(npio))], domain=MS,
                   gather_axis=0, quantize_axis=1, block_size=block)
    else:
        raise ValueError(form.embedding)

    eps = 1e-5
    gamma = lambda name: w.add(name, (1.0 + 0.1 * w.rng.standard_normal(hidden)).astype(npio))  # noqa: E731
    h = w.node("SimplifiedLayerNormalization", "/model/layers.0/input_layernorm/LayerNorm",
               [x, gamma("model.layers.0.input_layernorm.weight")],
               ["/model/layers.0/input_layernorm/output_0"], epsilon=eps, axis=-1, stash_type=1)
    residual = x
    qkv_n = (heads + 2 * kv_heads) * head
    for i in range(layers):
        p = "/model/layers.%d" % i
        past = ["past_key_values.%d.%s" % (i, kind) for kind in kinds]
        present = ["present.%d.%s" % (i, kind) for kind in kinds]
        if form.packed_qkv:
            qkv = q.matmul(h, p + "/attn/qkv_proj/MatMul", hidden, qkv_n, kquant=kquant)
            qkv_in = [qkv, "", ""]
        else:
            qkv_in = [q.matmul(h, p + "/attn/%s_proj/MatMul" % name, hidden, n * head, kquant=kquant)
                      for name, n in (("q", heads), ("k", kv_heads), ("v", kv_heads))]
        rope = [cos_cache, sin_cache]
        if not form.rotary_in_attention:
            for j, name in ((0, "q"), (1, "k")):
                qkv_in[j] = w.node("RotaryEmbedding", p + "/attn/%s_rotary/RotaryEmbedding" % name,
                                   [qkv_in[j], "position_ids", cos_cache, sin_cache], domain=MS, interleaved=0,
                                   num_heads=0, rotary_embedding_dim=0)
            rope = ["", ""]
        attrs = dict(num_heads=heads, kv_num_heads=kv_heads, scale=1.0 / math.sqrt(head))
        if form.local_window_attr:
            attrs["local_window_size"] = form.window if form.window else -1
        attrs.update(softcap=0.0, do_rotary=int(form.rotary_in_attention), rotary_interleaved=0)
        if form.window:
            attrs["sliding_window_cache"] = 1
        gqa_inputs = qkv_in + past + [seqlens_k, total_seq_len] + rope + [""] * form.gqa_trailing
        attn = w.node("GroupQueryAttention", p + "/attn/GroupQueryAttention", gqa_inputs,
                      [p + "/attn/GroupQueryAttention/output_0"] + present, domain=MS, **attrs)[0]
        o = q.matmul(attn, p + "/attn/o_proj/MatMul", heads * head, hidden, kquant=kquant)
        outs = w.node("SkipSimplifiedLayerNormalization", p + "/post_attention_layernorm/SkipLayerNorm",
                      [residual, o, gamma("model.layers.%d.post_attention_layernorm.weight" % i)],
                      [p + "/post_attention_layernorm/output_0", "", "", p + "/post_attention_layernorm/output_3"],
                      domain=MS, epsilon=eps)
        h, residual = outs[0], outs[3]
        gate = q.matmul(h, p + "/mlp/gate_proj/MatMul", hidden, ffn, kquant=kquant)
        up = q.matmul(h, p + "/mlp/up_proj/MatMul", hidden, ffn, kquant=kquant)
        sig = w.node("Sigmoid", p + "/mlp/act_fn/Sigmoid", [gate])
        act = w.node("Mul", p + "/mlp/act_fn/Mul", [gate, sig])
        mul = w.node("Mul", p + "/mlp/Mul", [act, up])
        down = q.matmul(mul, p + "/mlp/down_proj/MatMul", ffn, hidden, kquant=kquant)
        if i + 1 < layers:
            n = "/model/layers.%d/input_layernorm" % (i + 1)
            outs = w.node("SkipSimplifiedLayerNormalization", n + "/SkipLayerNorm",
                          [residual, down, gamma("model.layers.%d.input_layernorm.weight" % (i + 1))],
                          [n + "/output_0", "", "", n + "/output_3"], domain=MS, epsilon=eps)
            h, residual = outs[0], outs[3]
        else:
            n = "/model/layers.%d/final_norm_layernorm" % layers
            h = w.node("SkipSimplifiedLayerNormalization", n + "/SkipLayerNorm",
                       [residual, down, gamma("model.layers.%d.final_norm_layernorm.weight" % layers)],
                       [n + "/output_0"], domain=MS, epsilon=eps)
    q.matmul(h, lm_head_name, hidden, vocab, output="logits", kquant=kquant)
    w.close()

    # Constant nodes first, as the builder's make_node adds them before their first consumer.
    nodes = [n for n in w.nodes if n.op_type == "Constant"] + [n for n in w.nodes if n.op_type != "Constant"]
    graph = helper.make_graph(nodes, "main_graph", inputs, outputs, initializer=w.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", form.opset), helper.make_opsetid(MS, 1)],
                              producer_name="onnxruntime-genai", producer_version="0.0.0")
    model.ir_version = form.ir_version
    with open(os.path.join(out_dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    return {"kv_heads": kv_heads, "head_dim": head, "layers": layers, "vocab": vocab, "float": "float16" if io == F16 else "float32",
            "position_ids": not form.rotary_in_attention, "window": form.window, "grouped_kv": form.grouped_kv,
            "release": form.release, "data_bytes": w.offset}
