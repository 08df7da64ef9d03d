#!/usr/bin/env python3
"""Converts many small models one after the other in one process through the Python module (the
library path: mo.convert_model + mo.save_model, tools/held_model.*) and prints the time per model.

The models are the ONNX backend node tests (Debian's libonnx-testdata, one or two ops each), in
name order; those mo refuses are skipped (and counted) until COUNT have converted. Each model is
converted ROUNDS times over; the figure is the best round's mean. Wall time and the process's CPU
time are both printed: on a shared machine the wall time of a few milliseconds depends on the
scheduler more than on mo.

  PYTHONPATH=build/python /usr/bin/python3 bench/small_models.py [--count 100] [--rounds 3]
                                                                 [--models DIR]
"""
import argparse
import glob
import os
import sys
import tempfile
import time

import mo


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default="/usr/include/onnx/backend/test/data/node")
    a = ap.parse_args()
    candidates = sorted(glob.glob(os.path.join(a.models, "*", "model.onnx")))
    if not candidates:
        sys.exit("no models under %s (apt-get install libonnx-testdata)" % a.models)
    out = tempfile.mkdtemp()
    xml = os.path.join(out, "model.xml")
    models, refused = [], 0
    for path in candidates:  # the first COUNT that convert (this pass also warms the caches)
        if len(models) == a.count:
            break
        try:
            mo.save_model(mo.convert_model(path, log_level="ERROR"), xml)
            models.append(path)
        except mo.ConversionError:
            refused += 1
    best_wall = best_cpu = None
    for _ in range(a.rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for path in models:
            mo.save_model(mo.convert_model(path, log_level="ERROR"), xml)
        wall = (time.perf_counter() - wall) / len(models)
        cpu = (time.process_time() - cpu) / len(models)
        best_wall = wall if best_wall is None else min(best_wall, wall)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    for f in os.listdir(out):
        os.unlink(os.path.join(out, f))
    os.rmdir(out)
    print("%d small models (%d refused and skipped): %.2f ms wall, %.2f ms CPU per model (best of %d rounds)" %
          (len(models), refused, best_wall * 1e3, best_cpu * 1e3, a.rounds))


if __name__ == "__main__":
    main()
