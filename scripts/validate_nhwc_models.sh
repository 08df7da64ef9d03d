#!/usr/bin/env bash
# Converts every model of ../shared/models/nhwc (TFLite, frozen GraphDef, TF.js) and validates the
# IR read back against the runtime outputs saved next to it (mo --validate), with f32 weights and
# compressed to f16, and prints the Transposes left in each IR. Exit 1 if a conversion or a
# validation fails.
#   scripts/validate_nhwc_models.sh [MODELS_DIR] [MO]   (defaults: ../shared/models/nhwc, build/tools/mo)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
models=${1:-$here/../shared/models/nhwc}
mo=${2:-$here/build/tools/mo}
[ -x "$mo" ] || { echo "mo not found at $mo: build it first" >&2; exit 2; }
[ -d "$models" ] || { echo "no models in $models" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
printf '%-50s %-6s %-10s %s\n' model fp16 transposes result
for dir in "$models"/*/*/; do
  model=$(ls "$dir"/model.tflite "$dir"/model.pb "$dir"/model.json 2>/dev/null | head -1)
  [ -n "$model" ] || continue
  inputs=$(ls "$dir"/input_*.npy 2>/dev/null | sort -V | paste -sd,)
  outputs=$(ls "$dir"/output_*.npy 2>/dev/null | sort -V | paste -sd,)
  for fp16 in False True; do
    log="$out/log"
    if "$mo" --input_model "$model" --output_dir "$out/ir" --compress_to_fp16=$fp16 --validate \
        ${inputs:+--validate_inputs "$inputs"} ${outputs:+--validate_outputs "$outputs"} >"$log" 2>&1; then
      result=$(grep -E '^(OK|FAIL)' "$log" | sed -E 's/ +/ /g; s/, max rel.*//' | paste -sd';')
    else
      result="FAILED: $(grep -m1 -E 'ERROR|FAIL' "$log")"
      failed=1
    fi
    transposes=$(grep -c 'type="Transpose"' "$out/ir"/model.xml 2>/dev/null || echo -)
    printf '%-50s %-6s %-10s %s\n' "${dir#$models/}" "$fp16" "$transposes" "$result"
  done
done
exit $failed
