#!/usr/bin/python3
"""ONNX -> mo -> ONNX over the ONNX backend node tests (Debian's libonnx-testdata, ONNX 1.12):
each test's model.onnx is converted with `mo --output_format onnx`, and ONNX Runtime
(onnxruntime-node, scripts/ort_batch.js) runs both the original and mo's ONNX on the test's
inputs; outputs are compared with the test's own expected outputs as mo-conformance compares
them (floats pass per element within atol 1e-4 or rtol 1e-3, NaN must match; integers and
booleans exactly). Prints a count per status and the tests that ONNX Runtime passes on the
original but not on mo's ONNX. docs/onnx-output.md has the result. Not run by CI.

  NODE_PATH=/work/npm/node_modules /usr/bin/python3 scripts/onnx_roundtrip_conformance.py \\
      --mo build/tools/mo [--data /usr/share/libonnx-testdata/data/node] [--filter SUBSTR] [--list FILE]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORTED = {np.float32, np.float64, np.float16, np.int32, np.int64, np.int16, np.int8, np.uint8, np.uint16,
             np.uint32, np.uint64, np.bool_}


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def close(got, want):
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan = np.isnan(w)
        if not np.array_equal(nan, np.isnan(g)):
            return False
        g, w = g[~nan], w[~nan]
        inf = np.isinf(w)
        if not np.array_equal(g[inf], w[inf]):
            return False
        g, w = g[~inf], w[~inf]
        d = np.abs(g - w)
        return bool(np.all((d <= 1e-4) | (d / np.maximum(np.abs(w), 1e-6) <= 1e-3)))
    return got.dtype == want.dtype and np.array_equal(got, want)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mo", default="build/tools/mo")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--filter", default="")
    ap.add_argument("--list", help="write one line per test with its status to this file")
    args = ap.parse_args()
    os.environ.setdefault("NODE_PATH", "/work/npm/node_modules")
    work = tempfile.mkdtemp(prefix="onnx_roundtrip_")
    tests = sorted(d for d in glob.glob(os.path.join(args.data, "*")) if args.filter in os.path.basename(d)
                   and os.path.exists(os.path.join(d, "model.onnx")))
    status, jobs, expected = {}, [], {}
    for d in tests:
        name = os.path.basename(d)
        out = os.path.join(work, name)
        os.makedirs(out)
        p = subprocess.run([args.mo, "--input_model", os.path.join(d, "model.onnx"), "--output_dir", out,
                            "--model_name", "mo", "--output_format", "onnx"], capture_output=True, text=True)
        if p.returncode != 0:
            status[name] = ("not converted", (p.stderr.strip().splitlines() or [""])[0][:160])
            continue
        model = onnx.load(os.path.join(d, "model.onnx"))
        inits = {i.name for i in model.graph.initializer}
        graph_inputs = [i.name for i in model.graph.input if i.name not in inits]
        outputs = [o.name for o in model.graph.output]
        for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
            feeds, ok = {}, True
            for k, f in enumerate(sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda s: int(s.rsplit("_", 1)[1][:-3]))):
                tname, a = read_pb(f)
                if a.dtype.type not in SUPPORTED:
                    ok = False
                    break
                fn = os.path.join(out, f"{os.path.basename(ds)}_in_{k}.npy")
                np.save(fn, a)
                feeds[tname or graph_inputs[k]] = fn
            if not ok:
                status[name] = ("inputs not in .npy", "")
                break
            want = []
            for k, f in enumerate(sorted(glob.glob(os.path.join(ds, "output_*.pb")), key=lambda s: int(s.rsplit("_", 1)[1][:-3]))):
                tname, a = read_pb(f)
                want.append((tname or outputs[k], a))
            for which, m in (("original", os.path.join(d, "model.onnx")), ("mo", os.path.join(out, "mo.onnx"))):
                jid = f"{name}|{os.path.basename(ds)}|{which}"
                jobs.append({"id": jid, "model": m, "feeds": feeds, "out": os.path.join(out, which, os.path.basename(ds))})
                expected[jid] = want
    jobs_file, results_file = os.path.join(work, "jobs.json"), os.path.join(work, "results.json")
    with open(jobs_file, "w") as f:
        json.dump(jobs, f)
    subprocess.run(["node", os.path.join(HERE, "ort_batch.js"), jobs_file, results_file], check=True)
    with open(results_file) as f:
        results = json.load(f)
    verdict = {}  # (test, which) -> (passed, message)
    for job in jobs:
        test, _, which = job["id"].split("|")
        r = results[job["id"]]
        prev = verdict.get((test, which), (True, ""))
        if "error" in r:
            verdict[(test, which)] = (False, "ORT: " + r["error"][:160])
            continue
        names = r["outputs"]
        for k, (oname, w) in enumerate(expected[job["id"]]):
            idx = names.index(oname) if oname in names else k
            if idx >= len(names):
                prev = (False, f"output {oname} missing")
                break
            g = np.load(os.path.join(job["out"], f"{idx}.npy"))
            if not close(g, w):
                prev = (False, f"output {oname} differs")
                break
        if not prev[0] or (test, which) not in verdict or verdict[(test, which)][0]:
            verdict[(test, which)] = prev
    for d in tests:
        name = os.path.basename(d)
        if name in status:
            continue
        orig, mine = verdict.get((name, "original"), (False, "")), verdict.get((name, "mo"), (False, ""))
        if mine[0]:
            status[name] = ("passed", "")
        elif orig[0]:
            status[name] = ("failed (ORT passes the original)", mine[1])
        else:
            status[name] = ("failed (ORT fails the original too)", mine[1])
    counts = {}
    for s, _ in status.values():
        counts[s] = counts.get(s, 0) + 1
    print(f"{len(tests)} tests in {args.data}")
    for s in sorted(counts):
        print(f"  {s}: {counts[s]}")
    orig_pass = sum(1 for d in tests if verdict.get((os.path.basename(d), "original"), (False,))[0])
    print(f"  (ONNX Runtime passes {orig_pass} of the original models)")
    print("failed where ONNX Runtime passes the original:")
    for name, (s, msg) in sorted(status.items()):
        if s.startswith("failed (ORT passes"):
            print(f"  {name}: {msg}")
    if args.list:
        with open(args.list, "w") as f:
            for name, (s, msg) in sorted(status.items()):
                f.write(f"{name}\t{s}\t{msg}\n")


if __name__ == "__main__":
    main()
