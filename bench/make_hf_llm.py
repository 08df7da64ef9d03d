#!/usr/bin/python3
"""Writes a large f16 decoder in the Hugging Face export form of tests/e2e/data/hf_llama_fp16:
optimum's text-generation-with-past model.onnx (transformers 4.49 Llama, SDPA attention as
MatMul/Softmax, causal mask sub-graphs, position_ids; scripts/hf_models/export.py) made f16 the way
transformers.js's float16.py does (scripts/hf_models/quantize.py to_fp16: f16 weights and
activations, f32 inputs and outputs), weights in optimum's one external data file
(model.onnx_data, as optimum's check_and_save_model names it). The default shape is TinyLlama's
(22 layers, hidden 2048, 32 heads, 4 KV heads, FFN 5632, vocab 32000): 1.1 B parameters, 2.2 GB.

torch exports two layers at full width (the graph of every layer is the same); the other layers
are copies of the second layer's nodes with their own names and their own random weights (the
copies must not be equal, or mo's constant deduplication would shrink the BIN).

  apt-get install -y python3-torch
  /usr/bin/python3 bench/make_hf_llm.py --out DIR [--layers 22] [--hidden 2048] [--heads 32]
                                        [--kv_heads 4] [--ffn 5632] [--vocab 32000] [--seed 0]

Used by bench/run_all.sh (row hf_llama_f16). Not run by CI; delete DIR when done.
"""
import argparse
import copy
import os
import re
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "scripts", "hf_models"))
from export import export_decoder  # noqa: E402
from modeling import Config, DecoderLM  # noqa: E402
from quantize import _toposort, to_fp16  # noqa: E402


def in_layer(name, i):
    return "/layers.%d/" % i in name or ("past_key_values.%d." % i) in name or ("present.%d." % i) in name


def renamed(name, k, carry=()):
    """A tensor or node name of layer 1 as layer k's; `carry` (what layer 1 reads of layer 0's
    output) as layer k - 1's. Other layer-0 values layer 1 reads (the exporter shares the
    rotary cos/sin it unsqueezed in layer 0) stay shared."""
    if name in carry:
        return name.replace("/layers.0/", "/layers.%d/" % (k - 1))
    name = name.replace("/layers.1/", "/layers.%d/" % k)
    name = name.replace("past_key_values.1.", "past_key_values.%d." % k).replace("present.1.", "present.%d." % k)
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=22)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv_heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=5632)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    torch.manual_seed(a.seed)

    cfg = Config(family="llama", vocab=a.vocab, hidden=a.hidden, heads=a.heads, kv_heads=a.kv_heads, ffn=a.ffn,
                 layers=2, max_positions=2048)
    with tempfile.TemporaryDirectory() as work:
        model = DecoderLM(cfg).eval()
        template = to_fp16(export_decoder(model, cfg, os.path.join(work, "template.onnx")))
        del model
    g = template.graph
    inits = {t.name: t for t in g.initializer}
    layer0 = [n for n in g.node if in_layer(n.name, 0) or any(in_layer(o, 0) for o in n.output)]
    layer1 = [n for n in g.node if in_layer(n.name, 1) or any(in_layer(o, 1) for o in n.output)]
    used0 = {x for n in layer0 for x in n.input}
    own1 = {x for n in layer1 for x in n.input if x in inits and x not in used0}
    others = [n for n in g.node if n not in layer0 and n not in layer1]
    last = a.layers - 1
    # The residual stream: what follows the layers reads of layer 1, as layer 0 gives it to layer 1.
    carry = {x.replace("/layers.1/", "/layers.0/") for n in others for x in n.input if "/layers.1/" in x}

    nodes = list(g.node)
    new_inits = []
    for k in range(2, a.layers):
        for n in layer1:
            m = copy.deepcopy(n)
            m.name = renamed(n.name, k)
            for i, x in enumerate(m.input):
                m.input[i] = x + "__layer%d" % k if x in own1 else renamed(x, k, carry)
            for i, y in enumerate(m.output):
                m.output[i] = renamed(y, k)
            nodes.append(m)
        for name in sorted(own1):
            new_inits.append((name + "__layer%d" % k, name))
        for vi_list in (g.input, g.output):
            for vi in list(vi_list):
                if in_layer(vi.name, 1):
                    v = copy.deepcopy(vi)
                    v.name = renamed(vi.name, k)
                    vi_list.append(v)
    # What read layer 1's output now reads the last layer's.
    for n in others:
        for i, x in enumerate(n.input):
            if "/layers.1/" in x:
                n.input[i] = x.replace("/layers.1/", "/layers.%d/" % last)
    # Inputs and outputs in the exporter's order: by layer, key then value.
    def order(vi):
        m = re.match(r"(past_key_values|present)\.(\d+)\.(key|value)", vi.name)
        return (1, int(m.group(2)), m.group(3)) if m else (0, 0, "")
    for vi_list in (g.input, g.output):
        sorted_vis = sorted(vi_list, key=order)
        del vi_list[:]
        vi_list.extend(sorted_vis)

    # Weights into model.onnx_data, tensor by tensor: the template's own, then each copied
    # layer's random ones (the scale of the layer-1 tensor they copy).
    data_name = "model.onnx_data"
    like_of = {}  # layer 1's tensors the copies take their type, shape and scale from
    for name in own1:
        ref = numpy_helper.to_array(inits[name])
        like_of[name] = (ref.dtype, ref.shape, float(np.std(ref.astype(np.float32))), float(np.mean(ref.astype(np.float32))),
                         ref if ref.size <= 1 or ref.dtype != np.float16 else None)
    total = 0
    with open(os.path.join(a.out, data_name), "wb") as f:
        def external(t, raw):
            nonlocal total
            offset = f.tell()
            f.write(raw)
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            del t.external_data[:]
            for key, value in (("location", data_name), ("offset", str(offset)), ("length", str(len(raw)))):
                e = t.external_data.add()
                e.key, e.value = key, value
            total += len(raw)

        for t in g.initializer:
            if numpy_helper.to_array(t).nbytes >= 1024:
                external(t, numpy_helper.to_array(t).tobytes())
        for name, like in new_inits:
            dtype, shape, std, mean, small = like_of[like]
            if small is None:
                values = (mean + (std or 1.0) * rng.standard_normal(shape, dtype=np.float32)).astype(np.float16)
            else:
                values = small
            t = numpy_helper.from_array(values, name)
            if values.nbytes >= 1024:
                external(t, values.tobytes())
            g.initializer.append(t)
    del g.node[:]
    g.node.extend(nodes)
    _toposort(g)
    onnx.save(template, os.path.join(a.out, "model.onnx"))
    params = total // 2
    print("%s: %d layers, %.2f B parameters, %.2f GB of f16 weights" % (a.out, a.layers, params / 1e9, total / 1e9))


if __name__ == "__main__":
    main()
