#!/usr/bin/env bash
# Converts every model under MODELS_DIR (a directory holding model.onnx, model.tflite, model.pb
# or model.json with input_*.npy and output_*.npy: shared/models/make_onnx_models.sh output, or
# shared/models/nhwc) and validates the IR read back from disk against the source framework's
# outputs saved next to it (mo --validate), once with fp32 weights and once compressed to f16.
# Prints one line per model with the Transposes left in the IR and each output's error; exit 1
# if any conversion or validation fails, or if an fp32 IR's error relative to the output's
# range (max abs error / max |reference|, docs/validation.md) exceeds 1e-4.
#   scripts/validate_models.sh [MODELS_DIR] [MO]     (defaults: /work/models, build/tools/mo)
#   scripts/validate_models.sh ../shared/models/nhwc
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
models=${1:-/work/models}
mo=${2:-$here/build/tools/mo}
[ -x "$mo" ] || { echo "mo not found at $mo: build it first" >&2; exit 2; }
[ -d "$models" ] || { echo "no models in $models: run shared/models/make_onnx_models.sh $models" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
while IFS= read -r model; do
  dir=$(dirname "$model")
  name=${dir#"$models"/}
  inputs=$(ls "$dir"/input_*.npy 2>/dev/null | sort -V | paste -sd,)
  outputs=$(ls "$dir"/output_*.npy 2>/dev/null | sort -V | paste -sd,)
  for fp16 in False True; do
    log="$out/log"
    rm -rf "$out/ir"
    if "$mo" --input_model "$model" --output_dir "$out/ir" --compress_to_fp16=$fp16 --validate \
        ${inputs:+--validate_inputs "$inputs"} ${outputs:+--validate_outputs "$outputs"} >"$log" 2>&1; then
      status=ok
    else
      status=FAILED
      failed=1
    fi
    # Exact outputs print no error figures: no match is no error (grep's status is not the pipe's).
    if [ "$fp16" = False ] && [ "$status" = ok ] && ! { grep -oE 'max abs/max\|ref\| [0-9.e+-]+' "$log" || true; } |
        awk '{ if ($3 > 1e-4) bad = 1 } END { exit bad }'; then
      status=FAILED
      failed=1
    fi
    transposes=$(cat "$out/ir"/*.xml 2>/dev/null | grep -c 'type="Transpose"')
    printf '%-50s fp16=%-5s %-6s transposes=%-3s %s\n' "$name" "$fp16" "$status" "$transposes" \
      "$(grep -E '^(OK|FAIL) |\[ ERROR \]' "$log" | sed -E 's/^(OK|FAIL) +//' | paste -sd';')"
  done
done < <(find "$models" -mindepth 1 \( -name model.onnx -o -name model.tflite -o -name model.pb -o -name model.json \) | sort)
exit $failed
