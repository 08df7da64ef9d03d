#!/usr/bin/python3
"""Writes the Hugging Face export fixtures of tests/e2e/hf_llm_test.cpp: tiny (2-layer, 32-wide,
128-token) models in the ONNX forms optimum exports and transformers.js ships, one folder each,
tests/e2e/data/hf_<form>/, with a fixture.json that scripts/make_hf_reference.js reads to run
ONNX Runtime on them.

  apt-get install -y python3-torch        # Debian's torch 1.13 (and python3-onnx, python3-numpy)
  /usr/bin/python3 scripts/make_hf_models.py [--out tests/e2e/data] [--only hf_llama,...] [--rounded_only]
  NODE_PATH=/work/npm/node_modules node scripts/make_hf_reference.js tests/e2e/data/hf_*

Forms (the release and function each comes from are in the docstrings of hf_models/modeling.py,
hf_models/export.py and hf_models/quantize.py):
  hf_<family>            model.onnx (optimum 1.23 text-generation-with-past, transformers 4.49)
  hf_<family>_quantized  model_quantized.onnx (ORT dynamic quantization: DynamicQuantizeLinear + MatMulInteger)
  hf_<family>_q4         model_q4.onnx (MatMul4BitsQuantizer: MatMulNBits, block 32, symmetric)
  hf_<family>_fp16       model_fp16.onnx (transformers.js float16.py, f32 inputs and outputs)
    for family in llama, qwen2, phi3, gemma
  hf_llama_merged        decoder_model_merged.onnx (optimum 1.13 legacy: If on use_cache_branch)
  hf_whisper_merged      decoder_model_merged.onnx of a Whisper decoder with the cross-attention cache
  hf_whisper_merged_quantized  its decoder_model_merged_quantized.onnx (quantized inside the If branches)
  hf_bert, hf_bert_quantized   model.onnx / model_quantized.onnx of a BERT encoder (per-channel, reduced range)

For each, the generator also writes to --scratch (default $TMPDIR/mo_hf_fixtures, where
make_hf_reference.js looks for it) a copy of the model whose f32 initializers and Constants
that fit f16 are rounded to f16: its ONNX Runtime outputs (f16ref_*.npy) measure the error f16
weights alone cause, the bound the tests give mo's default (f16-compressed) IR. fixture.json
counts the MatMulNBits / MatMulInteger nodes (the low-bit weights the IR must keep) and the
bytes of the weights (the BIN must not be larger). Not run by CI.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_models"))
from export import export_bert, export_decoder, export_legacy_merged_llama, export_whisper_merged  # noqa: E402
from modeling import BertEncoder, Config, DecoderLM, LegacyLlamaLM, WhisperDecoder, init_  # noqa: E402
from quantize import quantize_q4, quantize_q8, to_fp16  # noqa: E402

FAMILIES = {
    "llama": dict(family="llama"),
    "qwen2": dict(family="qwen2", tie=True, rope_theta=1000000.0),
    "phi3": dict(family="phi3", kv_heads=4, sliding_window=2047),
    "gemma": dict(family="gemma", kv_heads=1, head_dim=16, tie=True),
}
PROMPT = [5, 17, 42, 7, 99]


def attention_scales(graph):
    """Names of the scalar constants that scale attention scores: softmax((q·c1)(kᵀ·c2)·c + mask),
    each factor optional. mo's ScaledDotProductAttentionFusion folds their product into the
    ScaledDotProductAttention's scale input, which f16 compression keeps exact."""
    producer = {o: n for n in graph.node for o in n.output}
    scalars = {t.name for t in graph.initializer if numpy_helper.to_array(t).size == 1}
    scalars |= {n.output[0] for n in graph.node if n.op_type == "Constant" and
                any(a.type == onnx.AttributeProto.TENSOR and numpy_helper.to_array(a.t).size == 1 for a in n.attribute)}

    def scaled_by(name, ops):
        """(the other input, the scalar) when `name` is op(x, scalar) of one of `ops`."""
        n = producer.get(name)
        if n is None or n.op_type not in ops or len(n.input) != 2:
            return name, None
        if n.input[1] in scalars:
            return n.input[0], n.input[1]
        if n.op_type == "Mul" and n.input[0] in scalars:
            return n.input[1], n.input[0]
        return name, None

    found = set()
    for n in graph.node:
        if n.op_type != "Softmax":
            continue
        x = n.input[0]
        add = producer.get(x)
        if add is not None and add.op_type == "Add":  # + mask, either side
            x = next((i for i in add.input if producer.get(i) is not None and producer[i].op_type in ("MatMul", "Mul", "Div")), x)
        x, c = scaled_by(x, ("Mul", "Div"))
        scores = producer.get(x)
        if scores is None or scores.op_type != "MatMul":
            continue
        factors = [c] + [scaled_by(i, ("Mul",))[1] for i in scores.input]
        found |= {f for f in factors if f}
    return found


def rounded_copy(model):
    """The model with every f32 initializer and Constant whose finite values fit f16 rounded to
    f16 (kept f32), as mo's CompressFloatConstantsToF16 rounds constants; attention's scale
    factors (attention_scales) stay exact, as in mo's IR."""
    model = onnx.ModelProto.FromString(model.SerializeToString())

    def fits(a):
        finite = a[np.isfinite(a)]
        return finite.size == 0 or np.abs(finite).max() <= 65504

    def visit(graph):
        exact = attention_scales(graph)
        for t in graph.initializer:
            if t.data_type == onnx.TensorProto.FLOAT and t.name not in exact:
                a = numpy_helper.to_array(t)
                if fits(a):
                    t.CopyFrom(numpy_helper.from_array(a.astype(np.float16).astype(np.float32), t.name))
        for n in graph.node:
            for a in n.attribute:
                if n.op_type == "Constant" and n.output[0] in exact:
                    continue
                if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == onnx.TensorProto.FLOAT:
                    v = numpy_helper.to_array(a.t)
                    if fits(v):
                        a.t.CopyFrom(numpy_helper.from_array(v.astype(np.float16).astype(np.float32), a.t.name))
                if a.type == onnx.AttributeProto.GRAPH:
                    visit(a.g)

    visit(model.graph)
    return model


def weight_bytes(graph):
    """Bytes of the initializers and Constant tensors, If branches included."""
    total = sum(numpy_helper.to_array(t).nbytes for t in graph.initializer)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                total += weight_bytes(a.g)
            elif a.type == onnx.AttributeProto.TENSOR:
                total += numpy_helper.to_array(a.t).nbytes
    return total


def write(out, name, file, model, spec, scratch):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    onnx.save(model, os.path.join(d, file))
    onnx.save(rounded_copy(model), os.path.join(scratch, name + "_f16_rounded.onnx"))
    spec = dict(spec, weight_bytes=weight_bytes(model.graph))
    counts = {}
    for n in model.graph.node:
        for g in [n] + [x for a in n.attribute if a.type == onnx.AttributeProto.GRAPH for x in a.g.node]:
            if g.op_type in ("MatMulNBits", "MatMulInteger"):
                counts[g.op_type] = counts.get(g.op_type, 0) + 1
    spec = dict(spec, model=file, **counts)
    with open(os.path.join(d, "fixture.json"), "w") as f:
        json.dump(spec, f, indent=1)
    print("%-28s %8d bytes" % (name, os.path.getsize(os.path.join(d, file))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests/e2e/data"))
    ap.add_argument("--only", default="")
    ap.add_argument("--scratch", default=os.environ.get("MO_HF_SCRATCH", os.path.join(tempfile.gettempdir(), "mo_hf_fixtures")))
    ap.add_argument("--rounded_only", action="store_true",
                    help="only write the f16-rounded copies of the fixtures already in --out")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    os.makedirs(args.scratch, exist_ok=True)
    if args.rounded_only:
        for name in sorted(os.listdir(args.out)):
            spec_path = os.path.join(args.out, name, "fixture.json")
            if name.startswith("hf_") and (not only or name in only) and os.path.exists(spec_path):
                with open(spec_path) as f:
                    model = onnx.load(os.path.join(args.out, name, json.load(f)["model"]))
                onnx.save(rounded_copy(model), os.path.join(args.scratch, name + "_f16_rounded.onnx"))
        return
    work = tempfile.mkdtemp()

    def wanted(name):
        return not only or name in only

    for fam, kw in FAMILIES.items():
        cfg = Config(**kw)
        torch.manual_seed(0)
        model = DecoderLM(cfg)
        init_(model, torch.Generator().manual_seed(sorted(FAMILIES).index(fam) + 1))
        model.eval()
        base = export_decoder(model, cfg, os.path.join(work, fam + ".onnx"))
        spec = dict(kind="decoder", layers=cfg.layers, kv_heads=cfg.kv_heads, head_dim=cfg.head_dim, prompt=PROMPT)
        forms = {"hf_" + fam: ("model.onnx", lambda: base),
                 "hf_%s_quantized" % fam: ("model_quantized.onnx", lambda: quantize_q8(base, False, False)),
                 "hf_%s_q4" % fam: ("model_q4.onnx", lambda: quantize_q4(base)),
                 "hf_%s_fp16" % fam: ("model_fp16.onnx", lambda: to_fp16(base))}
        for name, (file, make) in forms.items():
            if wanted(name):
                write(args.out, name, file, make(), spec, args.scratch)

    if wanted("hf_llama_merged"):
        cfg = Config(family="llama")
        model = LegacyLlamaLM(cfg)
        init_(model, torch.Generator().manual_seed(7))
        model.eval()
        merged = export_legacy_merged_llama(model, cfg, os.path.join(work, "merged.onnx"), work)
        write(args.out, "hf_llama_merged", "decoder_model_merged.onnx", merged,
              dict(kind="merged", layers=cfg.layers, kv_heads=cfg.kv_heads, head_dim=cfg.head_dim, prompt=PROMPT),
              args.scratch)

    if wanted("hf_whisper_merged") or wanted("hf_whisper_merged_quantized"):
        cfg = Config(family="whisper", heads=4, kv_heads=4, ffn=64, max_positions=64)
        dec = WhisperDecoder(cfg)
        init_(dec, torch.Generator().manual_seed(11))
        dec.eval()
        merged = export_whisper_merged(dec, cfg, 6, os.path.join(work, "whisper.onnx"), work)
        spec = dict(kind="whisper", layers=cfg.layers, kv_heads=cfg.heads, head_dim=cfg.head_dim, prompt=PROMPT,
                    encoder_length=6, hidden=cfg.hidden)
        if wanted("hf_whisper_merged"):
            write(args.out, "hf_whisper_merged", "decoder_model_merged.onnx", merged, spec, args.scratch)
        if wanted("hf_whisper_merged_quantized"):
            write(args.out, "hf_whisper_merged_quantized", "decoder_model_merged_quantized.onnx",
                  quantize_q8(merged, False, False), spec, args.scratch)

    if wanted("hf_bert") or wanted("hf_bert_quantized"):
        cfg = Config(family="bert", heads=4, ffn=64, max_positions=64)
        bert = BertEncoder(cfg)
        init_(bert, torch.Generator().manual_seed(13))
        bert.eval()
        base = export_bert(bert, cfg, os.path.join(work, "bert.onnx"))
        spec = dict(kind="encoder", layers=cfg.layers)
        if wanted("hf_bert"):
            write(args.out, "hf_bert", "model.onnx", base, spec, args.scratch)
        if wanted("hf_bert_quantized"):
            write(args.out, "hf_bert_quantized", "model_quantized.onnx", quantize_q8(base, True, True), spec, args.scratch)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
