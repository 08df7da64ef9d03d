#!/usr/bin/python3
"""The torchvision zoo through mo: export every model builder of Debian's python3-torchvision
0.14 to ONNX with random weights, convert each with mo (f32 and the default f16), run the IR with
mo-run and compare with PyTorch's outputs. Not run in CI.

    /usr/bin/python3 scripts/zoo/zoo.py --out /work/zoo [--only resnet18,ssd300_vgg16] [--mo build/tools]

Per model, OUT/<name>/ gets model.onnx, input_*.npy, torch_*.npy, the IRs (f32/, f16/) and the
outputs mo-run computed; OUT/results.jsonl gets one JSON line (the last line per model wins);
scripts/zoo/make_table.py turns it into docs/zoo.md.

Weights are random (seeded); BatchNorm statistics are re-estimated on random images so that BN
is not the identity; detectors keep every detection (score threshold 0) so that outputs exist.
Classification, segmentation and video models are exported at opset 13 (classification at 17
where 13 fails), detectors at 11 (13 where 11 fails), optical flow at 16 (GridSample).
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import traceback

import numpy as np
import torch
import torchvision
from torchvision import models

HERE = os.path.dirname(os.path.abspath(__file__))
MEMORY_LIMIT = 20 << 30  # address space of one model's export, conversions and runs
SOURCE = os.path.dirname(os.path.dirname(HERE))


def image(shape, seed):
    rng = np.random.RandomState(seed)
    return rng.rand(*shape).astype(np.float32)


def calibrate_batch_norm(module, make_input, steps=3):
    """Cumulative BN statistics over a few random batches (train mode), then eval mode."""
    bns = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    module.train()
    with torch.no_grad():
        for s in range(steps):
            module(*make_input(100 + s))
    module.eval()


class Detector(torch.nn.Module):
    """Takes a batch-1 image tensor instead of a list, returns the first image's dict as a tuple."""

    def __init__(self, model, keys):
        super().__init__()
        self.model, self.keys = model, keys

    def forward(self, x):
        out = self.model([x[0]])[0]
        return tuple(out[k] for k in self.keys)


def spec(name):
    """(module, inputs, output names, opsets to try, kind)"""
    if name in models.list_models(module=models.detection):
        kw = {"weights": None, "weights_backbone": None}
        if name.startswith(("fasterrcnn", "maskrcnn", "keypointrcnn")):
            kw.update(box_score_thresh=0.0, min_size=320, max_size=320)
        elif name.startswith(("retinanet", "fcos")):
            kw.update(score_thresh=0.0, min_size=320, max_size=320)
        elif name.startswith("ssd"):
            kw.update(score_thresh=0.0)
        m = models.get_model(name, **kw).eval()
        keys = ["boxes", "scores", "labels"]
        if name.startswith("maskrcnn"):
            keys.append("masks")
        if name.startswith("keypointrcnn"):
            keys += ["keypoints", "keypoints_scores"]
        size = 300 if name.startswith("ssd300") else 320
        # Two images: SSDlite's extra blocks reach 1x1 maps, where one image gives BN one value per channel.
        calibrate_batch_norm(m.backbone, lambda s: [torch.from_numpy(image((2, 3, size, size), s))])
        return Detector(m, keys), [image((1, 3, size, size), 0)], keys, [11, 13], "detection"
    if name in models.list_models(module=models.optical_flow):
        m = models.get_model(name, weights=None).eval()
        shape = (1, 3, 128, 128)
        calibrate_batch_norm(m, lambda s: [torch.from_numpy(image(shape, s)), torch.from_numpy(image(shape, s + 50))])
        return m, [image(shape, 0), image(shape, 1)], ["flow"], [16], "optical_flow"
    if name in models.list_models(module=models.video):
        m = models.get_model(name, weights=None).eval()
        shape = (1, 3, 16, 224, 224) if name in ("mvit_v1_b", "mvit_v2_s", "s3d") else (1, 3, 8, 112, 112)
        calibrate_batch_norm(m, lambda s: [torch.from_numpy(image(shape, s))])
        return m, [image(shape, 0)], ["logits"], [13], "video"
    if name in models.list_models(module=models.segmentation):
        m = models.get_model(name, weights=None, weights_backbone=None, aux_loss=False).eval()
        shape = (1, 3, 224, 224)
        calibrate_batch_norm(m, lambda s: [torch.from_numpy(image((2,) + shape[1:], s))])

        class Out(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(x)["out"]

        return Out(m), [image(shape, 0)], ["out"], [13], "segmentation"
    kw = {"weights": None}
    if name in ("inception_v3", "googlenet"):
        kw["aux_logits"] = False
        kw["init_weights"] = True
    m = models.get_model(name, **kw).eval()
    shape = (1, 3, 299, 299) if name == "inception_v3" else (1, 3, 224, 224)
    calibrate_batch_norm(m, lambda s: [torch.from_numpy(image((2,) + shape[1:], s))])
    return m, [image(shape, 0)], ["logits"], [13, 17], "classification"


def randomize_zero_weights(module):
    """Weights a builder initialises to zero (ViT's classification head) get small random values:
    otherwise the output is constant and comparing it checks nothing."""
    with torch.no_grad():
        for m in module.modules():
            w = getattr(m, "weight", None)
            if isinstance(w, torch.nn.Parameter) and w.dim() >= 2 and not w.any():
                w.normal_(0.0, 0.02)


def all_names():
    names = []
    for mod in (models, models.detection, models.segmentation, models.video, models.optical_flow):
        names += models.list_models(module=mod)
    return names


def export(name, out):
    torch.manual_seed(0)
    module, inputs, output_names, opsets, kind = spec(name)
    randomize_zero_weights(module)
    tensors = [torch.from_numpy(x) for x in inputs]
    with torch.no_grad():
        ref = module(*tensors)
    ref = ref if isinstance(ref, (tuple, list)) else (ref,)
    errors = []
    for opset in opsets:
        try:
            path = os.path.join(out, "model.onnx")
            torch.onnx.export(module, tuple(tensors), path, opset_version=opset,
                              input_names=[f"input_{i}" for i in range(len(inputs))],
                              output_names=output_names, do_constant_folding=True)
            break
        except Exception as e:  # the exporter's own failure goes into the table
            errors.append(f"opset {opset}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    else:
        return {"kind": kind, "export_error": " | ".join(errors)}
    for i, x in enumerate(inputs):
        np.save(os.path.join(out, f"input_{i}.npy"), x)
    for i, r in enumerate(ref):
        np.save(os.path.join(out, f"torch_{i}.npy"), r.numpy())
    import onnx
    m = onnx.load(path, load_external_data=False)

    def count(g):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.HasField("g")) for n in g.node)

    ops = sorted({n.op_type for n in m.graph.node})
    return {"kind": kind, "opset": opset, "nodes": count(m.graph), "control_flow": [o for o in ops if o in ("If", "Loop", "Scan")],
            "outputs": len(ref), "export_note": " | ".join(errors)}


def timed(cmd, timeout):
    """Runs cmd under /usr/bin/time: (returncode, seconds, peak MiB, output tail)."""
    t0 = time.time()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.time() - t0, None, "timeout"
    m = re.search(r"TIME ([\d.]+) (\d+)", p.stderr)
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-6:])
    return p.returncode, float(m.group(1)) if m else None, int(m.group(2)) / 1024 if m else None, tail


def compare(kind, refs, gots):
    """Max abs error relative to the output's range (dense outputs); detections as sets."""
    if kind == "detection":
        boxes, scores, labels = refs[0], refs[1], refs[2]
        gb, gs, gl = gots[0], gots[1], gots[2]
        if len(scores) != len(gs):
            return float("inf"), f"{len(gs)} detections, PyTorch {len(scores)}"
        span = max(float(np.ptp(boxes)) if boxes.size else 1.0, 1e-6)
        used = np.zeros(len(gs), bool)
        worst = 0.0
        for i in range(len(scores)):
            cand = [j for j in range(len(gs)) if not used[j] and gl[j] == labels[i]]
            if not cand:
                return float("inf"), f"no detection of label {labels[i]} left for PyTorch's detection {i}"
            err = [max(abs(float(gs[j]) - float(scores[i])), float(np.abs(gb[j] - boxes[i]).max()) / span) for j in cand]
            k = int(np.argmin(err))
            used[cand[k]] = True
            worst = max(worst, err[k])
        return worst, "as sets of detections"
    worst = 0.0
    for r, g in zip(refs, gots):
        if r.shape != g.shape:
            return float("inf"), f"shape {g.shape}, PyTorch {r.shape}"
        span = max(float(np.ptp(r)) if r.size else 1.0, 1e-12)
        worst = max(worst, float(np.abs(g.astype(np.float64) - r).max()) / span if r.size else 0.0)
    return worst, ""


def convert_and_check(name, out, row, tools, timeout):
    inputs = ",".join(os.path.join(out, f"input_{i}.npy") for i in range(row.get("inputs", 1)))
    refs = [np.load(os.path.join(out, f"torch_{i}.npy")) for i in range(row["outputs"])]
    for precision in ("f32", "f16"):
        ir_dir = os.path.join(out, precision)
        cmd = [os.path.join(tools, "mo"), "--input_model", os.path.join(out, "model.onnx"), "--output_dir", ir_dir]
        if precision == "f32":
            cmd += ["--compress_to_fp16=False"]
        rc, secs, mib, tail = timed(cmd, timeout)
        row[f"{precision}_convert_s"], row[f"{precision}_peak_mib"] = secs, mib
        if rc != 0:
            row[f"{precision}_status"] = "mo fails: " + tail.replace("\n", " ")[:400]
            continue
        run_dir = os.path.join(out, precision + "_out")
        rc, secs, _, tail = timed([os.path.join(tools, "mo-run"), os.path.join(ir_dir, "model.xml"), "--inputs", inputs,
                                   "--out", run_dir], timeout)
        row[f"{precision}_run_s"] = secs
        if rc != 0:
            row[f"{precision}_status"] = "mo-run fails: " + tail.replace("\n", " ")[:400]
            continue
        names = row["output_names"]
        gots = [np.load(os.path.join(run_dir, f"{n}.npy")) for n in names]
        err, note = compare(row["kind"], refs, gots)
        row[f"{precision}_max_rel_error"] = err
        limit = 1e-4 if precision == "f32" else 5e-2
        row[f"{precision}_status"] = ("ok" if err <= limit else "mismatch") + (f" ({note})" if note else "")


def f64_check(name, out, row):
    """Where f32 differs from PyTorch: how far PyTorch's own f32 output and mo's are from PyTorch
    in float64. Deep random-weight networks lose 1e-4 of their range to f32 rounding alone."""
    torch.manual_seed(0)
    module, inputs, _, _, kind = spec(name)
    randomize_zero_weights(module)
    with torch.no_grad():
        exact = module.double()(*[torch.from_numpy(x).double() for x in inputs])
    exact = [e.numpy() for e in (exact if isinstance(exact, (tuple, list)) else (exact,))]
    refs = [np.load(os.path.join(out, f"torch_{i}.npy")) for i in range(row["outputs"])]
    gots = [np.load(os.path.join(out, "f32_out", f"{n}.npy")) for n in row["output_names"]]
    row["torch_f32_vs_f64"], _ = compare(kind, exact, refs)
    row["mo_f32_vs_f64"], _ = compare(kind, exact, gots)
    if kind == "detection":
        stable, found = stable_detections(exact, refs, gots)
        row["stable_detections"], row["stable_detections_in_mo"] = stable, found


def matches(boxes, scores, labels, i, others, used, span):
    """Index of an unused detection in `others` equal to detection i (label, score within 1e-4,
    box within 1e-3 of the box range), or -1."""
    ob, os_, ol = others
    for j in range(len(os_)):
        if not used[j] and ol[j] == labels[i] and abs(float(os_[j]) - float(scores[i])) <= 1e-4 and \
                float(np.abs(ob[j] - boxes[i]).max()) <= 1e-3 * span:
            return j
    return -1


def stable_detections(exact, refs, gots):
    """PyTorch's f32 detections that its float64 run also gives (the ones rounding does not
    decide), and how many of them mo's IR gives."""
    boxes, scores, labels = refs[0], refs[1], refs[2]
    span = max(float(np.ptp(boxes)) if boxes.size else 1.0, 1e-6)
    used_exact = np.zeros(len(exact[1]), bool)
    used_mo = np.zeros(len(gots[1]), bool)
    stable = found = 0
    for i in range(len(scores)):
        j = matches(boxes, scores, labels, i, exact[:3], used_exact, span)
        if j < 0:
            continue
        used_exact[j] = True
        stable += 1
        k = matches(boxes, scores, labels, i, gots[:3], used_mo, span)
        if k >= 0:
            used_mo[k] = True
            found += 1
    return stable, found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--tools", default=os.path.join(SOURCE, "build", "tools"))
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--f64_check", action="store_true", help="only add the float64 check to f32 mismatches")
    args = ap.parse_args()
    if args.f64_check:
        rows = {}
        for line in open(os.path.join(args.out, "results.jsonl")):
            r = json.loads(line)
            rows[r["model"]] = r
        for name, row in rows.items():
            done = "mo_f32_vs_f64" in row and (row.get("kind") != "detection" or "stable_detections" in row)
            if not str(row.get("f32_status", "")).startswith("mismatch") or done:
                continue
            try:
                f64_check(name, os.path.join(args.out, name), row)
            except Exception as e:
                row["f64_check_error"] = f"{type(e).__name__}: {e}"[:300]
            with open(os.path.join(args.out, "results.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
            print(name, row.get("torch_f32_vs_f64"), row.get("mo_f32_vs_f64"), row.get("f64_check_error", ""), flush=True)
        return
    names = [n for n in args.only.split(",") if n] or all_names()
    os.makedirs(args.out, exist_ok=True)
    if not args.single:
        # One child per model under a memory limit: PyTorch's exporter alone can take more than
        # this machine has (MViT-V2 video), and must not take the whole run down.
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--only", name, "--tools", args.tools,
                   "--timeout", str(args.timeout), "--single"]
            p = subprocess.run(cmd, preexec_fn=limit)
            if p.returncode != 0:
                row = {"model": name, "export_error": f"the export or the run died (exit {p.returncode}) under the "
                                                      f"{MEMORY_LIMIT >> 30} GiB address-space limit"}
                with open(os.path.join(args.out, "results.jsonl"), "a") as f:
                    f.write(json.dumps(row) + "\n")
        return
    for name in names:
        out = os.path.join(args.out, name)
        os.makedirs(out, exist_ok=True)
        row = {"model": name, "torchvision": torchvision.__version__, "torch": torch.__version__}
        t0 = time.time()
        try:
            row.update(export(name, out))
        except Exception as e:
            row["export_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
            traceback.print_exc()
        row["export_s"] = round(time.time() - t0, 1)
        if "export_error" not in row:
            row["inputs"] = len([f for f in os.listdir(out) if f.startswith("input_")])
            row["output_names"] = _output_names(out)
            convert_and_check(name, out, row, args.tools, args.timeout)
        with open(os.path.join(args.out, "results.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def _output_names(out):
    import onnx
    m = onnx.load(os.path.join(out, "model.onnx"), load_external_data=False)
    return [o.name for o in m.graph.output]


if __name__ == "__main__":
    sys.exit(main())
