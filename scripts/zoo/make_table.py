#!/usr/bin/python3
"""docs/zoo.md's table from the results.jsonl that scripts/zoo/zoo.py writes.

    /usr/bin/python3 scripts/zoo/make_table.py /work/zoo/results.jsonl > docs/zoo-table.md
"""
import json
import os
import sys

import numpy as np


def fmt(v, digits=2):
    if v is None:
        return ""
    if isinstance(v, float):
        if v == float("inf"):
            return "differ"
        return f"{v:.1e}" if v < 0.01 else f"{v:.{digits}f}"
    return str(v)


def distinct_scores(r, out_dir):
    """How many different scores PyTorch's detections have (all 1.0 when the heads saturate)."""
    path = os.path.join(out_dir, r["model"], "torch_1.npy")
    return len(np.unique(np.load(path))) if os.path.exists(path) else None


def verdict(r, out_dir):
    if "export_error" in r:
        return "exporter fails", r["export_error"]
    f32, f16 = r.get("f32_status", ""), r.get("f16_status", "")
    if f32.startswith("mo fails") or f32.startswith("mo-run fails"):
        return "mo fails", f32
    if f32.startswith("ok"):
        note = "" if f16.startswith("ok") else "f16: " + f16
        return "ok", note
    torch_err, mo_err = r.get("torch_f32_vs_f64"), r.get("mo_f32_vs_f64")
    if torch_err is not None and mo_err is not None:
        if r["kind"] == "detection" and torch_err == float("inf"):
            stable, found = r.get("stable_detections"), r.get("stable_detections_in_mo")
            note = ("detections at near-equal scores: PyTorch's own f32 and float64 runs keep different sets as well "
                    "(score threshold 0, random weights)")
            if stable is not None:
                note += f"; of the {stable} detections both PyTorch runs give, mo gives {found}"
                if found == stable:
                    return "ok (f32-fragile set)", note
            distinct = distinct_scores(r, out_dir)
            if distinct is not None and distinct <= 2:
                note += f"; PyTorch's scores take {distinct} value(s) (saturated heads), so which tied detections are kept is arbitrary"
            return "f32-fragile", note
        if mo_err <= max(1e-4, 1.5 * torch_err):
            return ("ok (f32 rounding)", f"PyTorch f32 is {torch_err:.1e} of the range from float64, mo {mo_err:.1e}")
    return "mismatch", f32


def main():
    rows = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        rows[r["model"]] = r  # the last line per model wins
    kinds = ["classification", "detection", "segmentation", "video", "optical_flow"]
    order = sorted(rows.values(), key=lambda r: (kinds.index(r["kind"]) if r.get("kind") in kinds else 9, r["model"]))
    counts = {}
    print("| model | kind | opset | nodes | control flow | f32 convert s | s / 1000 nodes | peak MiB | "
          "f32 max err / range | f16 max err / range | status | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in order:
        status, note = verdict(r, os.path.dirname(os.path.abspath(sys.argv[1])))
        counts[status] = counts.get(status, 0) + 1
        nodes = r.get("nodes")
        secs = r.get("f32_convert_s")
        per_k = secs / nodes * 1000 if secs is not None and nodes else None
        note = note.replace("|", "/").replace("\n", " ")[:400]
        print(f"| {r['model']} | {r.get('kind', '')} | {fmt(r.get('opset'))} | {fmt(nodes)} | "
              f"{', '.join(r.get('control_flow') or [])} | {fmt(secs)} | {fmt(per_k, 3)} | {fmt(r.get('f32_peak_mib'), 0)} | "
              f"{fmt(r.get('f32_max_rel_error'))} | {fmt(r.get('f16_max_rel_error'))} | {status} | {note} |")
    print()
    print("Totals: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + f" (of {len(rows)} models).")


if __name__ == "__main__":
    main()
