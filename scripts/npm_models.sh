#!/usr/bin/env bash
# Prepares the real models that npm packages ship, with their own runtimes' outputs, for
# tests/e2e/runtime_models_test.cpp (MO_NPM_MODELS=OUT ctest -R NpmModel). Nothing here is
# committed: the models stay in OUT, outside the repository.
#
#   cd /work/npm && npm install @tensorflow/tfjs @tensorflow/tfjs-tflite @vladmandic/human @mediapipe/hands \
#       @mediapipe/face_mesh @mediapipe/pose
#   NODE_PATH=/work/npm/node_modules scripts/npm_models.sh /work/npm-models
#
# OUT/tfjs/<name>: @vladmandic/human's TF.js graph models; outputs by TensorFlow.js (scripts/tfjs_outputs.js).
# OUT/tflite/<name>: MediaPipe's .tflite files (@mediapipe/hands and @mediapipe/pose ship some, the others are in the
#   packages' emscripten data files, cut out at the offsets their loader scripts list); outputs by
#   the TFLite interpreter (scripts/tflite_outputs.js). Inputs: uniform [-1, 1) from a fixed seed.
set -euo pipefail
out=${1:-/work/npm-models}
modules=${NODE_PATH:?set NODE_PATH to the node_modules folder}
here=$(cd "$(dirname "$0")" && pwd)
human=$modules/@vladmandic/human/models
for m in antispoof blazeface centernet emotion facemesh faceres handlandmark-lite handtrack iris liveness movenet-lightning; do
  mkdir -p "$out/tfjs/$m"
  cp "$human/$m.json" "$out/tfjs/$m/model.json"
  cp "$human/$m.bin" "$out/tfjs/$m/"
done
/usr/bin/python3 - "$modules/@mediapipe" "$out/tflite" <<'PY'
import os, re, sys
root, out = sys.argv[1], sys.argv[2]
for pkg, data in [("hands", "hands_solution_packed_assets"), ("face_mesh", "face_mesh_solution_packed_assets"),
                  ("pose", "pose_solution_packed_assets")]:
    loader = open(os.path.join(root, pkg, data + "_loader.js")).read()
    blob = open(os.path.join(root, pkg, data + ".data"), "rb").read()
    for f, a, b in re.findall(r'"filename": *"([^"]*)", *"start": *(\d+), *"end": *(\d+)', loader):
        name = os.path.basename(f)
        # face_landmark_with_attention needs MediaPipe's custom ops, which the TFLite runtime lacks.
        if not name.endswith(".tflite") or "with_attention" in name: continue
        os.makedirs(os.path.join(out, name[:-7]), exist_ok=True)
        open(os.path.join(out, name[:-7], "model.tflite"), "wb").write(blob[int(a):int(b)])
for pkg, name in [("hands", "hand_landmark_full"), ("hands", "hand_landmark_lite"), ("pose", "pose_landmark_full"),
                  ("pose", "pose_landmark_lite")]:
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "model.tflite"), "wb").write(open(os.path.join(root, pkg, name + ".tflite"), "rb").read())
PY
cp -r "$(dirname "$here")/../shared/models/nhwc/tflite/face_detection__face_detection_full_range/." "$out/tflite/face_detection_full_range/" 2>/dev/null || true
node "$here/tfjs_outputs.js" --random "$out"/tfjs/*
node "$here/tflite_outputs.js" --random "$out"/tflite/*
