#!/usr/bin/python3
"""Converts models with `mo --output_format onnx` and checks the written ONNX against the source
runtime's outputs with ONNX Runtime (docs/onnx-output.md, the table of models).

For each model directory (model.tflite / model.json / model.pb / model.onnx / model.xml, with
input_<i>.npy and the source runtime's output_<j>.npy):
  * mo writes <dir>.onnx; its conversion time is measured;
  * onnx.checker.check_model(full_check=True) (ONNX 1.12, Debian's python3-onnx) checks it;
  * ONNX Runtime (onnxruntime-node, scripts/ort_model_outputs.js) runs it on the inputs;
  * each output is compared with the runtime's: float outputs as max |ort - ref| / (max ref - min
    ref) (the output range), integer outputs in quantization steps (max |ort - ref|);
  * the Transposes, QuantizeLinear / DequantizeLinear and integer initializers are counted.

Run (not in CI: ONNX Runtime is not installed there):
  NODE_PATH=/work/npm/node_modules /usr/bin/python3 scripts/onnx_output_check.py --mo build/tools/mo \\
      DIR [DIR ...] [--mo-args "--input_shape [1,3,8,8]"] [--markdown]
A directory may also be given as DIR=MODEL_FILE when the model file has another name. With
--named PREFIX_IN,PREFIX_OUT the inputs and outputs are PREFIX_IN<input name>.npy and
PREFIX_OUT<output name>.npy (the Hugging Face fixtures: --named step1_in_,step1_out_).
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_FILES = ["model.tflite", "model.json", "model.pb", "model.onnx", "model.xml"]
NP_OF_ONNX = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16}


def model_file(d):
    if "=" in d:
        d, f = d.split("=", 1)
        return d, f
    for f in MODEL_FILES:
        if os.path.exists(os.path.join(d, f)):
            return d, os.path.join(d, f)
    raise SystemExit(f"{d}: no model file")


def numbered(d, prefix):
    files = []
    while os.path.exists(os.path.join(d, f"{prefix}_{len(files)}.npy")):
        files.append(os.path.join(d, f"{prefix}_{len(files)}.npy"))
    return files


def all_nodes(graph):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from all_nodes(a.g)


def check(mo, d, mo_args, keep, named=None):
    d, f = model_file(d)
    name = os.path.basename(os.path.normpath(d))
    out = tempfile.mkdtemp(prefix="onnx_out_") if not keep else keep
    cmd = [mo, "--input_model", f, "--output_dir", out, "--model_name", name, "--output_format", "onnx"] + mo_args
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - t0
    row = {"model": name, "seconds": seconds}
    if p.returncode != 0:
        row["error"] = (p.stderr.strip().splitlines() or ["mo failed"])[0]
        return row
    path = os.path.join(out, name + ".onnx")
    model = onnx.load(path)
    try:
        onnx.checker.check_model(model, full_check=True)
        row["checker"] = "passes"
    except Exception as e:  # noqa: BLE001 - reported in the table
        row["checker"] = "FAILS: " + str(e).splitlines()[0]
    ops = [n.op_type for n in all_nodes(model.graph)]
    row["nodes"] = len(ops)
    row["transposes"] = ops.count("Transpose")
    row["qdq"] = ops.count("QuantizeLinear") + ops.count("DequantizeLinear")
    row["opset"] = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    ints = [i for i in model.graph.initializer if i.data_type in (2, 3)]
    row["int8_weights"] = sum(int(np.prod(i.dims)) for i in ints)
    # Inputs in the ONNX input types (TF.js saves uint8 images as int32).
    inputs = []
    sources = numbered(d, "input")
    if named:
        sources = [os.path.join(d, named[0] + vi.name + ".npy") for vi in model.graph.input]
        sources = sources[:next((k for k, s in enumerate(sources) if not os.path.exists(s)), len(sources))]
    for k, (src, vi) in enumerate(zip(sources, model.graph.input)):
        a = np.load(src)
        want = NP_OF_ONNX.get(vi.type.tensor_type.elem_type)
        if want is not None and a.dtype != want:
            a = a.astype(want)
        fn = os.path.join(out, f"{name}_in_{k}.npy")
        np.save(fn, a)
        inputs.append(fn)
    ort_dir = tempfile.mkdtemp(prefix="ort_")
    p = subprocess.run(["node", os.path.join(HERE, "ort_model_outputs.js"), path, ort_dir] + inputs,
                       capture_output=True, text=True)
    if p.returncode != 0:
        row["error"] = "ONNX Runtime: " + (p.stderr.strip().splitlines() or ["failed"])[-1]
        return row
    errors = []
    refs = numbered(d, "output")
    got = numbered(ort_dir, "output")
    if named:  # the reference of each output that has one, by name
        pairs = [(os.path.join(d, named[1] + o.name + ".npy"), g) for o, g in zip(model.graph.output, got)]
        pairs = [(r, g) for r, g in pairs if os.path.exists(r)]
        refs, got = [r for r, _ in pairs], [g for _, g in pairs]
    # Outputs beyond the runtime's: a stateless model's variables as assigned (compared by the
    # next step, not here).
    if len(refs) > len(got):
        row["error"] = f"{len(got)} outputs, the runtime gives {len(refs)}"
        return row
    for r, g in zip(refs, got):
        want, have = np.load(r), np.load(g)
        if want.shape != have.shape:
            errors.append(f"shape {have.shape} != {want.shape}")
            continue
        if want.dtype.kind in "iub":
            errors.append(f"{int(np.max(np.abs(have.astype(np.int64) - want.astype(np.int64)), initial=0))} steps")
        else:
            span = float(np.max(want) - np.min(want)) if want.size else 0.0
            err = float(np.max(np.abs(have.astype(np.float64) - want.astype(np.float64)), initial=0))
            errors.append(f"{err / span if span > 0 else err:.1e}")
    row["error_vs_runtime"] = ", ".join(errors)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mo", default="build/tools/mo")
    ap.add_argument("--mo-args", default="")
    ap.add_argument("--keep", help="write the ONNX files to this folder")
    ap.add_argument("--named", help="PREFIX_IN,PREFIX_OUT: inputs and outputs by name")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    os.environ.setdefault("NODE_PATH", "/work/npm/node_modules")
    cols = ["model", "error_vs_runtime", "checker", "transposes", "qdq", "int8_weights", "nodes", "opset", "seconds", "error"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    failed = 0
    for d in args.dirs:
        row = check(args.mo, d, shlex.split(args.mo_args), args.keep, args.named.split(",") if args.named else None)
        failed += "error" in row
        print("| " + " | ".join(f"{row[c]:.2f}" if c == "seconds" else str(row.get(c, "")) for c in cols) + " |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
