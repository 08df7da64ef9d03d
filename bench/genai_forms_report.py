#!/usr/bin/env python3
"""Prints the table of docs/llm-forms.md: for each GenAI model-builder fixture
(tests/e2e/data/genai_*, scripts/make_genai_fixtures.sh) whether mo converts it plain and with
--transform MakeStateful, its low-bit Constants, the BIN against the source's weight file, and
whether scripts/check_ir.py (the strict structural check) passes the default and the stateful
IR, the largest |logit - ONNX Runtime's| for the prompt (step 1) and the decode step (step 2) with
--compress_to_fp16=False and with default flags, next to the error f16 rounding alone causes
(ONNX Runtime on the f16-rounded model, or for fp16 exports ONNX Runtime's own f16 against the
model's f32 copy). The logits come from mo-run on the plain IR with the fixture's inputs; the
tests (tests/e2e/genai_forms_test.cpp) assert the same and the stateful IR's. For the stateful IR
(--transform MakeStateful) it prints whether it has the beam_idx input, its ScaledDotProductAttention
count, and whether `mo-run --generate 16 --inputs prompt.npy` gives ONNX Runtime's 16 greedy tokens
(greedy_tokens.npy) with --compress_to_fp16=False and with default flags (tests/e2e/llm_generate_test.cpp
asserts the first).

  /usr/bin/python3 bench/genai_forms_report.py [--mo build/tools/mo] [--mo-run build/tools/mo-run]

Needs numpy. Not run by CI.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def convert(mo, model, out, *flags):
    r = subprocess.run([mo, "--input_model", model, "--output_dir", out, *flags], capture_output=True, text=True)
    return r.returncode == 0


def logits(mo_run, xml, fixture, step, out):
    inputs = sorted(glob.glob(os.path.join(fixture, "step%d_in_*.npy" % step)))
    names = ",".join("%s=%s" % (os.path.basename(p)[len("step%d_in_" % step):-4], p) for p in inputs)
    subprocess.run([mo_run, xml, "--inputs", names, "--out", out], check=True, capture_output=True)
    return np.load(os.path.join(out, "logits.npy")).astype(np.float64)


def greedy_tokens_equal(mo_run, xml, fixture):
    """'yes', or the first step whose token differs from ONNX Runtime's."""
    r = subprocess.run([mo_run, xml, "--generate", "16", "--inputs", os.path.join(fixture, "prompt.npy")],
                       capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith("tokens:")), None)
    if r.returncode != 0 or line is None:
        return "FAILS"
    got = [int(t) for t in line.split()[1:]]
    want = np.load(os.path.join(fixture, "greedy_tokens.npy")).tolist()
    if got == want:
        return "yes"
    return "no (step %d)" % next(i for i in range(len(want)) if i >= len(got) or got[i] != want[i])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mo", default=os.path.join(ROOT, "build/tools/mo"))
    ap.add_argument("--mo-run", default=os.path.join(ROOT, "build/tools/mo-run"))
    a = ap.parse_args()
    fixtures = sorted(glob.glob(os.path.join(ROOT, "tests/e2e/data/genai_*"))) + \
        [os.path.join(ROOT, "tests/e2e/data/genai_dml_fp16/f32_copy")]
    print("| form | releases | converts plain / stateful | strict check | u4 / i4 / u8 constants | BIN / source "
          "| prompt f32 | decode f32 | prompt default | decode default | f16 error (prompt / decode) "
          "| stateful: beam_idx, SDPA | 16 greedy tokens = ORT (f32 / default) |")
    print("|---|---|---|---|---|---|---:|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in fixtures:
            name = os.path.relpath(fixture, os.path.join(ROOT, "tests/e2e/data"))
            model = os.path.join(fixture, "model.onnx")
            work = os.path.join(tmp, name.replace("/", "_"))
            plain = convert(a.mo, model, work + "/f32", "--compress_to_fp16=False")
            default = convert(a.mo, model, work + "/default")
            stateful = convert(a.mo, model, work + "/stateful", "--transform", "MakeStateful") and convert(
                a.mo, model, work + "/stateful_f32", "--transform", "MakeStateful", "--compress_to_fp16=False")
            checked = all(subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/check_ir.py"), "--opsets",
                                          os.path.join(ROOT, "../shared/ir/opsets.json"),
                                          os.path.join(work, ir, "model.xml")], capture_output=True).returncode == 0
                          for ir in ("default", "stateful"))
            xml = open(os.path.join(work, "default/model.xml")).read()
            counts = " / ".join(str(len(re.findall(r'element_type="%s"' % t, xml))) for t in ("u4", "i4", "u8"))
            ratio = os.path.getsize(os.path.join(work, "default/model.bin")) / os.path.getsize(model + ".data")
            errors, bounds = [], []
            tag = "f32" if os.path.exists(os.path.join(fixture, "step1_f32_out_logits.npy")) else "f16r"
            for ir in ("f32", "default"):
                for step in (1, 2):
                    got = logits(a.mo_run, os.path.join(work, ir, "model.xml"), fixture, step,
                                 os.path.join(work, "run_%s_%d" % (ir, step)))
                    want = np.load(os.path.join(fixture, "step%d_out_logits.npy" % step)).astype(np.float64)
                    errors.append("%.1e" % np.abs(got - want).max())
            for step in (1, 2):
                want = np.load(os.path.join(fixture, "step%d_out_logits.npy" % step)).astype(np.float64)
                copy = np.load(os.path.join(fixture, "step%d_%s_out_logits.npy" % (step, tag))).astype(np.float64)
                bounds.append("%.1e" % np.abs(copy - want).max())
            release = json.load(open(os.path.join(fixture, "form.json")))["release"]
            stateful_xml = open(os.path.join(work, "stateful/model.xml")).read()
            beam = "beam_idx" if 'name="beam_idx"' in stateful_xml else "NO beam_idx"
            sdpa = len(re.findall(r'type="ScaledDotProductAttention"', stateful_xml))
            tokens = " / ".join(greedy_tokens_equal(a.mo_run, os.path.join(work, ir, "model.xml"), fixture)
                                for ir in ("stateful_f32", "stateful"))
            print("| %s | %s | %s / %s | %s | %s | %.2f | %s | %s | %s | %s | %s (%s) | %s, %d | %s |" % (
                name, release, "yes" if plain and default else "NO", "yes" if stateful else "NO",
                "passes" if checked else "FAILS", counts, ratio, *errors,
                " / ".join(bounds), tag, beam, sdpa, tokens))


if __name__ == "__main__":
    main()
