#!/usr/bin/env python3
"""Mutates real models by the thousand and checks mo's promise on each (docs/hardening.md).

    scripts/mutate_models.py --mo build/tools/mo [--count 500] [--jobs 2] [--seed 1] MODEL ...

MODEL is a .onnx, .prototxt, .tflite or .pb file, or a TF.js directory (model.json and its
shards). Half of the mutants have their bytes changed: truncated, bits flipped, a run zeroed or
set to 0xFF, a byte range duplicated or removed, a varint inflated. The other half keep their
format's framing and change one field instead (scripts/model_surgery.py: an integer set to an
extreme, a field removed or repeated, an op type or input name swapped for another). For TF.js
one of its files is mutated. mo converts it with a 10 s timeout, and the outcome must be one of:
  * exit 0 with the .xml and .bin written, or
  * exit 1 with an "[ ERROR ]" line and nothing written.
Anything else (another exit code, a signal, a timeout, an error without a message, files left
after an error, a sanitizer report from an MO_SANITIZE build) is a failure: the mutant is saved
under --failures with mo's output.
Only the standard library: runs anywhere python3 does.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from model_surgery import surgery


def mutate(name: str, data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        changed = surgery(name, data, rng)
        if changed is not None:
            return changed
    b = bytearray(data)
    if not b:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    kind = rng.randrange(7)
    if kind == 0:  # truncation
        return bytes(b[: rng.randrange(len(b))])
    if kind == 1:  # a few flipped bits
        for _ in range(rng.randrange(1, 9)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 2:  # a run of zeros or 0xFF
        start = rng.randrange(len(b))
        value = rng.choice((0, 0xFF))
        for i in range(start, min(len(b), start + rng.randrange(1, 17))):
            b[i] = value
    elif kind == 3:  # a range duplicated
        start = rng.randrange(len(b))
        end = min(len(b), start + rng.randrange(1, 65))
        b[end:end] = b[start:end]
    elif kind == 4:  # a range removed
        start = rng.randrange(len(b))
        del b[start : start + rng.randrange(1, 65)]
    elif kind == 5:  # a random byte anywhere
        for _ in range(rng.randrange(1, 5)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    else:  # a varint inflated: a byte with the high bit set, and its successor
        candidates = [i for i in range(len(b) - 1) if b[i] & 0x80]
        i = rng.choice(candidates) if candidates else rng.randrange(len(b))
        b[i] = 0xFF
        if i + 1 < len(b):
            b[i + 1] = rng.choice((0x7F, 0xFF, 0x0F))
    return bytes(b)


def model_files(model):
    """The files of a model: {relative name: bytes}, and the name to give mo."""
    if os.path.isdir(model):
        files = {n: open(os.path.join(model, n), "rb").read() for n in sorted(os.listdir(model))
                 if n == "model.json" or n.endswith(".bin")}
        return files, "model.json"
    name = "model" + os.path.splitext(model)[1]
    return {name: open(model, "rb").read()}, name


def run_one(mo, model, index, seed, failures, timeout):
    rng = random.Random(f"{seed}:{model}:{index}")
    files, entry = model_files(model)
    victim = rng.choice(sorted(files)) if len(files) > 1 else entry
    files[victim] = mutate(victim, files[victim], rng)
    work = tempfile.mkdtemp(prefix="mo-mutant-")
    try:
        for name, data in files.items():
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
        out = os.path.join(work, "out")
        try:
            r = subprocess.run([mo, "--input_model", os.path.join(work, entry), "--output_dir", out,
                                "--model_name", "m"], capture_output=True, text=True, errors="replace",
                               timeout=timeout)
            code, text = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            code, text = "timeout", ""
        written = sorted(os.listdir(out)) if os.path.isdir(out) else []
        # A sanitizer build (MO_SANITIZE) reports by text; its exit code may look like a refusal.
        if "Sanitizer" in text or "runtime error:" in text:
            code = f"{code} with a sanitizer report"
        elif code == 0 and written == ["m.bin", "m.xml"]:
            return "converted", None
        elif code == 1 and "[ ERROR ]" in text and not written:
            return "refused", None
        reason = f"exit {code}, files {written}"
        saved = os.path.join(failures, f"{os.path.basename(model.rstrip('/'))}-{index}")
        shutil.copytree(work, saved, dirs_exist_ok=True)
        with open(os.path.join(saved, "mo_output.txt"), "w") as f:
            f.write(reason + "\n" + text)
        return "failed", f"{model} #{index} ({victim}): {reason}: {text.strip()[:300]}"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mo", required=True)
    p.add_argument("--count", type=int, default=500, help="mutants per model")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--failures", default=os.path.join(tempfile.gettempdir(), "mo-mutant-failures"))
    p.add_argument("models", nargs="+")
    a = p.parse_args()
    os.makedirs(a.failures, exist_ok=True)
    totals = {"converted": 0, "refused": 0, "failed": 0}
    print(f"{'model':60} {'mutants':>8} {'converted':>10} {'refused':>8} {'failed':>7}")
    with ThreadPoolExecutor(a.jobs) as pool:
        for model in a.models:
            counts = {"converted": 0, "refused": 0, "failed": 0}
            for outcome, message in pool.map(lambda i: run_one(a.mo, model, i, a.seed, a.failures, a.timeout),
                                             range(a.count)):
                counts[outcome] += 1
                if message:
                    print("FAILED:", message, flush=True)
            for k in totals:
                totals[k] += counts[k]
            name = model if len(model) <= 60 else "…" + model[-59:]
            print(f"{name:60} {a.count:>8} {counts['converted']:>10} {counts['refused']:>8} {counts['failed']:>7}",
                  flush=True)
    print(f"{'total':60} {sum(totals.values()):>8} {totals['converted']:>10} {totals['refused']:>8} "
          f"{totals['failed']:>7}")
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
