#!/usr/bin/env bash
# ONNX output against IR output and against `cp`, measured side by side in one run (the machine is
# shared and noisy: only ratios from one run mean anything; each figure is the best of REPS runs):
#   * a generated LLM (bench/make_llm.py, LLM_SIZE, default 3G: past protobuf's 2 GB, so the ONNX
#     weights go to external data): wall time of `cp` of its files, mo -> IR (f32), mo -> ONNX;
#     peak RSS against the weights' size; the written files synced in every case;
#   * synthetic graphs of 10k and 100k nodes (bench/make_synthetic.py transformer): mo -> IR and
#     mo -> ONNX wall time and peak RSS.
# mo -> ONNX includes the ONNX checker and strict shape inference of the written file.
#
#   bench/onnx_output.sh [WORK_DIR]          (default /tmp/mo-bench-onnx; models generated once)
#   LLM_SIZE=3G REPS=3 MO=build/tools/mo bench/onnx_output.sh
#
# Needs GNU time, python3 with numpy and onnx (Debian: python3-numpy python3-onnx). Not run by CI.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/mo-bench-onnx}
mo=${MO:-$here/build/tools/mo}
reps=${REPS:-3}
llm_size=${LLM_SIZE:-3G}
python=${PYTHON:-/usr/bin/python3}
[ -x "$mo" ] || { echo "mo not found at $mo: build it or set MO=" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
scratch=$(mktemp -d "$work/run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
calc() { awk "BEGIN { print ($*) }"; }

measure() {  # best wall (s) and RSS (KiB) of REPS runs of "$@"
  wall="" rss=""
  for ((r = 0; r < reps; r++)); do
    sync
    /usr/bin/time -f '%e %M' -o "$scratch/time" "$@" >/dev/null 2>"$scratch/err" || { cat "$scratch/err" >&2; exit 1; }
    read -r w m <"$scratch/time"
    if [ -z "$wall" ] || [ "$(calc "$w < $wall")" = 1 ]; then wall=$w; fi
    if [ -z "$rss" ] || [ "$m" -lt "$rss" ]; then rss=$m; fi
  done
}
mo_synced() { rm -rf "$scratch/out"; "$mo" --output_dir "$scratch/out" "$@" && sync "$scratch/out"/*; }
cp_synced() { rm -rf "$scratch/copy"; mkdir "$scratch/copy"; cp "$@" "$scratch/copy/" && sync "$scratch/copy"/*; }
export -f mo_synced cp_synced; export mo scratch

llm=$work/llm_$llm_size/model.onnx
[ -f "$llm" ] || "$python" "$here/bench/make_llm.py" --out "$(dirname "$llm")" --size "$llm_size" >/dev/null
files=$(find "$(dirname "$llm")/" -maxdepth 1 -type f | sort)
bytes=$(cat $files | wc -c)
cat $files >/dev/null
printf '%-16s %-10s %9s %8s %8s %9s %8s\n' model output MB wall_s vs_cp rss_MB rss/size
measure bash -c "cp_synced $(echo $files)"
cp_wall=$wall
printf '%-16s %-10s %9.1f %8.2f %8s %9s %8s\n' "llm_$llm_size" cp "$(calc "$bytes / 1e6")" "$cp_wall" 1.00 - -
for format in ir onnx; do
  measure bash -c "mo_synced --input_model '$llm' --compress_to_fp16=False --output_format $format"
  printf '%-16s %-10s %9.1f %8.2f %8.2f %9.0f %8.3f\n' "llm_$llm_size" "$format" "$(calc "$bytes / 1e6")" "$wall" \
    "$(calc "$wall / $cp_wall")" "$(calc "$rss / 1024")" "$(calc "$rss * 1024 / $bytes")"
done
for nodes in 10000 100000; do
  model=$work/transformer_$nodes.onnx
  [ -f "$model" ] || "$python" "$here/bench/make_synthetic.py" --kind transformer --nodes $nodes --out "$model" >/dev/null
  for format in ir onnx; do
    measure bash -c "mo_synced --input_model '$model' --output_format $format"
    printf '%-16s %-10s %9s %8.2f %8s %9.0f %8s\n' "transformer_$nodes" "$format" - "$wall" - "$(calc "$rss / 1024")" -
  done
done
