#!/usr/bin/env bash
# The scale benchmarks of docs/performance.md in one run, as ratios (this machine is shared and
# noisy: only figures measured side by side mean anything):
#   * large models (generated LLMs, optimum's f16 form of a 1.1 B decoder, VGG-16 / ViT when given):
#     wall time of mo (f32 and f16 weights) against `cp` of the model's files,
#     written files synced in both; peak RSS against the weights' size;
#   * an 8B-shaped int4 LLM in ONNX Runtime GenAI's form (bench/make_genai_llm.py --form 0.15,
#     Llama-3-8B's shape, 6.8 GB): mo with default flags, with --transform MakeStateful, and
#     with f32 weights against `cp` of its data file (runs interleaved), wall and CPU time, peak RSS;
#   * synthetic graphs of 1k..1M cheap nodes: time and peak RSS, and their growth per 10x nodes;
#   * the tiny sample model end to end.
# Each figure is the best of REPS runs.
#
#   bench/run_all.sh [WORK_DIR]            (default /tmp/mo-bench; models are generated there once)
#   LLM_SIZE=12G REPS=3 VGG16=path.onnx VIT=path.onnx MO=build/tools/mo bench/run_all.sh
#   SECTIONS="genai" bench/run_all.sh      (some of: large genai synthetic tiny; default all)
#
# Needs GNU time, python3 with numpy and onnx (the generators), and mo built (cmake --build build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/mo-bench}
mo=${MO:-$here/build/tools/mo}
reps=${REPS:-3}
llm_size=${LLM_SIZE:-12G}
python=${PYTHON:-/usr/bin/python3}  # Debian's, with python3-numpy and python3-onnx
[ -x "$mo" ] || { echo "mo not found at $mo: build it or set MO=" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
scratch=$(mktemp -d "$work/run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
calc() { awk "BEGIN { print ($*) }"; }
sections=" ${SECTIONS:-large genai synthetic tiny} "
section() { [[ "$sections" == *" $1 "* ]]; }

# Runs "$@" under GNU time REPS times (syncing first, untimed); sets $wall (s), $cpu (user +
# system s) and $rss (KiB) to the best of the runs.
measure() {
  wall="" rss="" cpu=""
  for ((r = 0; r < reps; r++)); do
    sync
    /usr/bin/time -f '%e %M %U %S' -o "$scratch/time" "$@" >/dev/null 2>"$scratch/err" || { cat "$scratch/err" >&2; exit 1; }
    read -r w m u s <"$scratch/time"
    if [ -z "$wall" ] || [ "$(calc "$w < $wall")" = 1 ]; then wall=$w; fi
    if [ -z "$rss" ] || [ "$m" -lt "$rss" ]; then rss=$m; fi
    if [ -z "$cpu" ] || [ "$(calc "$u + $s < $cpu")" = 1 ]; then cpu=$(calc "$u + $s"); fi
  done
}

# mo into $scratch/out, then fsync of what it wrote; cp likewise.
mo_synced() { rm -rf "$scratch/out"; "$mo" --output_dir "$scratch/out" "$@" && sync "$scratch/out"/*; }
cp_synced() { rm -rf "$scratch/copy"; mkdir "$scratch/copy"; cp "$@" "$scratch/copy/" && sync "$scratch/copy"/*; }

large_model_rows() {  # NAME MODEL.onnx
  local name=$1 model=$2 dir files bytes
  dir=$(dirname "$model")
  files=$(find "$dir/" -maxdepth 1 -type f \( -name '*.onnx' -o -name '*.data*' -o -name '*_data' -o -name '*.bin' \) | sort)
  bytes=$(cat $files | wc -c)
  cat $files >/dev/null  # the source in the page cache for every run alike
  export -f mo_synced cp_synced; export mo scratch
  measure bash -c "cp_synced $(echo $files)"
  local cp_wall=$wall
  for mode in False True; do
    measure bash -c "mo_synced --input_model '$model' --compress_to_fp16=$mode"
    printf '%-14s %-5s %8.1f %8.2f %8.2f %6.2f %9.0f %7.3f\n' "$name" "$([ $mode = True ] && echo f16 || echo f32)" \
      "$(calc "$bytes / 1e6")" "$wall" "$cp_wall" "$(calc "$wall / $cp_wall")" "$(calc "$rss / 1024")" \
      "$(calc "$rss * 1024 / $bytes")"
  done
}

if section large; then
echo "== large models: time vs cp (both synced), peak RSS vs model files (best of $reps)"
printf '%-14s %-5s %8s %8s %8s %6s %9s %7s\n' model f16 MB mo_s cp_s ratio peak_MiB RSS/MB
llm="$work/llm_$llm_size"
[ -f "$llm/model.onnx" ] || "$python" "$here/bench/make_llm.py" --out "$llm" --size "$llm_size" >/dev/null
large_model_rows "llm_$llm_size" "$llm/model.onnx"
llm_shards="$work/llm_1G_shards"
[ -f "$llm_shards/model.onnx" ] || "$python" "$here/bench/make_llm.py" --out "$llm_shards" --size 1G --shards 8 --kv_heads 4 >/dev/null
large_model_rows llm_1G_8shards "$llm_shards/model.onnx"
# optimum's form made f16 by transformers.js (1.1 B parameters, model.onnx + model.onnx_data); needs python3-torch
hf="$work/hf_llama_f16"
if [ -f "$hf/model.onnx" ] || "$python" -c 'import torch' 2>/dev/null; then
  [ -f "$hf/model.onnx" ] || "$python" "$here/bench/make_hf_llm.py" --out "$hf" >/dev/null 2>&1
  large_model_rows hf_llama_f16 "$hf/model.onnx"
else
  echo "hf_llama_f16: skipped (apt-get install python3-torch for bench/make_hf_llm.py)"
fi
for pair in "vgg16:${VGG16:-}" "vit_b_16:${VIT:-}"; do
  name=${pair%%:*} model=${pair#*:}
  if [ -n "$model" ] && [ -f "$model" ]; then large_model_rows "$name" "$model"; else echo "$name: skipped (set ${name^^}=path/to/model.onnx)"; fi
done
fi

if section genai; then
  echo
  echo "== GenAI int4 LLM, 8B-shaped (form 0.15): mo against cp of model.onnx.data, both synced;"
  echo "   rounds of (cp, default, stateful, f32) interleaved, best of $reps each, and the median of"
  echo "   each round's mo / cp"
  genai="$work/genai_8b"
  [ -f "$genai/model.onnx" ] || "$python" "$here/bench/make_genai_llm.py" --out "$genai" --form 0.15 --layers 32 \
    --hidden 4096 --heads 32 --kv_heads 8 --ffn 14336 --vocab 128256 --max_positions 8192 >/dev/null
  data_bytes=$(stat -c %s "$genai/model.onnx.data")
  cat "$genai/model.onnx.data" >/dev/null
  export -f mo_synced cp_synced; export mo scratch
  modes="cp default stateful f32"
  declare -A best_wall best_cpu best_rss ratios
  for ((round = 0; round < reps; round++)); do
    for mode in $modes; do
      case $mode in
        cp)       cmd="cp '$genai/model.onnx.data' '$scratch/copy/' && sync '$scratch/copy'/*" ;;
        default)  cmd="'$mo' --output_dir '$scratch/out' --input_model '$genai/model.onnx' && sync '$scratch/out'/*" ;;
        stateful) cmd="'$mo' --output_dir '$scratch/out' --input_model '$genai/model.onnx' --transform MakeStateful && sync '$scratch/out'/*" ;;
        f32)      cmd="'$mo' --output_dir '$scratch/out' --input_model '$genai/model.onnx' --compress_to_fp16=False && sync '$scratch/out'/*" ;;
      esac
      # The previous output is deleted before, untimed: freeing gigabytes of just-written page
      # cache costs more than freeing an older file's, which would favour whoever ran earlier.
      rm -rf "$scratch/out" "$scratch/copy"; mkdir "$scratch/copy"
      reps_saved=$reps reps=1
      measure bash -c "$cmd"
      reps=$reps_saved
      if [ -z "${best_wall[$mode]:-}" ] || [ "$(calc "$wall < ${best_wall[$mode]}")" = 1 ]; then best_wall[$mode]=$wall; fi
      if [ -z "${best_cpu[$mode]:-}" ] || [ "$(calc "$cpu < ${best_cpu[$mode]}")" = 1 ]; then best_cpu[$mode]=$cpu; fi
      if [ -z "${best_rss[$mode]:-}" ] || [ "$rss" -lt "${best_rss[$mode]}" ]; then best_rss[$mode]=$rss; fi
      if [ "$mode" = cp ]; then round_cp=$wall; else ratios[$mode]="${ratios[$mode]:-} $(calc "$wall / $round_cp")"; fi
    done
  done
  median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  printf '%-9s %8s %8s %8s %6s %8s %8s %6s %9s %9s\n' mode MB mo_s cp_s ratio mo_cpu cp_cpu ratio median peak_MiB
  for mode in default stateful f32; do
    printf '%-9s %8.1f %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f %9.2f %9.0f\n' "$mode" "$(calc "$data_bytes / 1e6")" \
      "${best_wall[$mode]}" "${best_wall[cp]}" "$(calc "${best_wall[$mode]} / ${best_wall[cp]}")" "${best_cpu[$mode]}" \
      "${best_cpu[cp]}" "$(calc "${best_cpu[cp]} > 0 ? ${best_cpu[$mode]} / ${best_cpu[cp]} : 0")" \
      "$(median ${ratios[$mode]})" "$(calc "${best_rss[$mode]} / 1024")"
  done
  rm -rf "$scratch/out" "$scratch/copy"
fi

if section synthetic; then
echo
echo "== synthetic graphs: time and peak RSS by node count, growth per 10x nodes (best of $reps)"
printf '%-12s %9s %8s %9s %10s %8s %8s\n' kind nodes wall_s peak_MiB KiB/node t_x10 rss_x10
for kind in chain wide transformer fan; do
  prev_wall="" prev_rss=""
  sizes="1000 10000 100000 1000000"
  [ "$kind" = chain ] || sizes="10000 100000"
  for n in $sizes; do
    model="$work/${kind}_$n.onnx"
    [ -f "$model" ] || "$python" "$here/bench/make_synthetic.py" --kind "$kind" --nodes "$n" --out "$model" >/dev/null
    measure "$mo" --input_model "$model" --output_dir "$scratch/syn"
    growth_t="-" growth_m="-"
    if [ -n "$prev_wall" ]; then growth_t=$(calc "$wall / $prev_wall"); growth_m=$(calc "$rss / $prev_rss"); fi
    printf '%-12s %9d %8.2f %9.1f %10.2f %8s %8s\n' "$kind" "$n" "$wall" "$(calc "$rss / 1024")" "$(calc "$rss / $n")" \
      "$growth_t" "$growth_m"
    prev_wall=$wall prev_rss=$rss
  done
done
fi

if section tiny; then
echo
echo "== tiny model end to end (mean of 50 runs, best of $reps rounds)"
best=""
for ((r = 0; r < reps; r++)); do
  start=$(date +%s%N)
  for i in $(seq 50); do "$mo" --input_model "$here/samples/tiny_cnn.prototxt" --output_dir "$scratch/tiny" >/dev/null; done
  ms=$(calc "($(date +%s%N) - $start) / 50 / 1e6")
  if [ -z "$best" ] || [ "$(calc "$ms < $best")" = 1 ]; then best=$ms; fi
done
printf 'tiny_cnn: %.1f ms per conversion\n' "$best"
fi
echo
uptime
