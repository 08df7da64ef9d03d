#!/usr/bin/env bash
# The figures of docs/performance.md in one run, as ratios (this machine is shared and noisy: only
# figures measured side by side mean anything):
#   * large models (generated LLMs, optimum's f16 form of a 1.1 B decoder, VGG-16 / ViT when given):
#     wall time of mo with f32 and with f16 weights against `cp` of the model's files, written
#     files synced in both, the three interleaved round by round; peak RSS against the weights;
#   * an 8B-shaped int4 LLM in ONNX Runtime GenAI's form (bench/make_genai_llm.py --form 0.15,
#     Llama-3-8B's shape, 6.8 GB): mo with default flags, with --transform MakeStateful, and
#     with f32 weights against `cp` of its data file (runs interleaved), wall and CPU time, peak RSS;
#   * synthetic graphs of 100k and 1M nodes (10k to 1M for the chain of Add(shared constant) + Relu):
#     time, CPU time and peak RSS, their growth per 10x nodes, the time per node against the
#     Add + Relu chain's, and the split by phase (mo --log_level INFO) of the best run;
#   * the tiny sample model end to end, and 100 small models converted in one process through
#     the Python module (bench/small_models.py);
#   * the f32 -> f16 kernels (portable, F16C, AVX-512F) against memcpy of the same f32 bytes
#     (build/bench/mo-f16-kernels).
# Each figure is the best of REPS runs; the load average is printed before and after.
#
#   bench/run_all.sh [WORK_DIR]            (default /tmp/mo-bench; models are generated there once)
#   REPS=3 LLMS="3.2G 12G" VGG16=path.onnx VIT=path.onnx MO=build/tools/mo bench/run_all.sh
#   SECTIONS="kernels large genai synthetic tiny" KINDS="add_relu wide transformer" bench/run_all.sh
#     (some of the sections, some of the graph kinds; ONLY= is the same as SECTIONS=)
#
# Needs GNU time, python3 with numpy and onnx (the generators), and mo built (cmake --build build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/mo-bench}
mo=${MO:-$here/build/tools/mo}
reps=${REPS:-3}
llms=${LLMS-3.2G 12G}  # LLMS="" runs none
only=${SECTIONS:-${ONLY:-kernels large genai synthetic tiny}}
kinds=${KINDS:-add_relu chain wide transformer fan}
python=${PYTHON:-/usr/bin/python3}  # Debian's, with python3-numpy and python3-onnx
[ -x "$mo" ] || { echo "mo not found at $mo: build it or set MO=" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
scratch=$(mktemp -d "$work/run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
calc() { awk "BEGIN { print ($*) }"; }
is_less() { [ "$(calc "$1 < $2")" = 1 ]; }
echo "mo: $mo"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# Runs "$@" once under GNU time (syncing first, untimed); sets $w (s), $c (user + system s) and
# $m (peak RSS KiB); its stderr is left in $scratch/err.
run_once() {
  sync
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" "$@" >/dev/null 2>"$scratch/err" || { cat "$scratch/err" >&2; exit 1; }
  read -r w u s m <"$scratch/time"
  c=$(calc "$u + $s")
}

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
export -f mo_synced cp_synced
export mo scratch

# Whether the work folder's disk has room for `bytes` more (with 1 GB to spare): a run writes the
# model's copy and mo's output beside it, and a 12 GiB LLM filled a shared disk that way.
has_room() {  # BYTES WHAT
  local free
  free=$(( $(df --output=avail -B1 "$work" | tail -1) ))
  if (( free < $1 + 1000000000 )); then
    echo "$2: skipped, needs $(( ($1 + 1000000000) / 1000000 )) MB free in $work, has $(( free / 1000000 )) MB"
    return 1
  fi
}

large_model_rows() {  # NAME MODEL.onnx
  local name=$1 model=$2 dir files bytes run
  dir=$(dirname "$model")
  files=$(find "$dir/" -maxdepth 1 -type f \( -name '*.onnx' -o -name '*.data*' -o -name '*_data' -o -name '*.bin' \) | sort)
  bytes=$(cat $files | wc -c)
  has_room $((2 * bytes)) "$name" || return 0  # cp's copy and mo's f32 output
  cat $files >/dev/null  # the source in the page cache for every run alike
  declare -A wall rss
  for ((r = 0; r < reps; r++)); do  # interleaved: cp, mo f32, mo f16 in every round
    for run in cp f32 f16; do
      case $run in
        cp) run_once bash -c "cp_synced $(echo $files)" ;;
        f32) run_once bash -c "mo_synced --input_model '$model' --compress_to_fp16=False" ;;
        f16) run_once bash -c "mo_synced --input_model '$model' --compress_to_fp16=True" ;;
      esac
      if [ -z "${wall[$run]:-}" ] || is_less "$w" "${wall[$run]}"; then wall[$run]=$w; fi
      if [ -z "${rss[$run]:-}" ] || [ "$m" -lt "${rss[$run]}" ]; then rss[$run]=$m; fi
    done
  done
  rm -rf "$scratch/out" "$scratch/copy"
  printf '%-16s %8.1f %7.2f %7.2f %6.2f %7.2f %6.2f %8.0f %8.0f\n' "$name" "$(calc "$bytes / 1e6")" "${wall[cp]}" \
    "${wall[f32]}" "$(calc "${wall[f32]} / ${wall[cp]}")" "${wall[f16]}" "$(calc "${wall[f16]} / ${wall[cp]}")" \
    "$(calc "${rss[f32]} / 1024")" "$(calc "${rss[f16]} / 1024")"
}

if [[ " $only " == *" kernels "* ]]; then
  echo
  echo "== f32 -> f16 conversion with its range check against memcpy of the f32 bytes (t/memcpy <= 1: memory speed)"
  kernels=$(dirname "$(dirname "$mo")")/bench/mo-f16-kernels
  if [ -x "$kernels" ]; then "$kernels" 256 "$((reps + 2))"; else echo "skipped: $kernels not built"; fi
fi

if [[ " $only " == *" large "* ]]; then
  echo
  echo "== large models: mo against cp of the model's files, both synced, interleaved (best of $reps)"
  printf '%-16s %8s %7s %7s %6s %7s %6s %8s %8s\n' model MB cp_s f32_s f32/cp f16_s f16/cp f32_MiB f16_MiB
  for size in $llms; do
    llm="$work/llm_$size"
    if [ ! -f "$llm/model.onnx" ]; then
      has_room "$(numfmt --from=iec "$size")" "llm_$size (generating it)" || continue
      "$python" "$here/bench/make_llm.py" --out "$llm" --size "$size" >/dev/null
    fi
    large_model_rows "llm_$size" "$llm/model.onnx"
  done
  if [ -n "${LLM_SHARDS:-1}" ]; then
    llm_shards="$work/llm_1G_shards"
    [ -f "$llm_shards/model.onnx" ] || "$python" "$here/bench/make_llm.py" --out "$llm_shards" --size 1G --shards 8 --kv_heads 4 >/dev/null
    large_model_rows llm_1G_8shards "$llm_shards/model.onnx"
  fi
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

if [[ " $only " == *" genai "* ]]; then
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

# The phase table of `mo --log_level INFO` in $scratch/err as "load extract transformations write release".
phases() {
  awk '$1 == "load" || $1 == "extract" || $1 == "transformations" || $1 == "release" || ($1 == "write" && $2 == "IR") {
         v = ($1 == "write") ? $3 : $2; s[$1] = v }
       END { printf "%5.2f %5.2f %5.2f %5.2f %5.2f", s["load"], s["extract"], s["transformations"], s["write"], s["release"] }' "$scratch/err"
}

if [[ " $only " == *" synthetic "* ]]; then
  echo
  echo "== synthetic graphs by node count (best of $reps by wall time): growth per 10x nodes, time per node"
  echo "   against the Add + Relu chain of the same size, and the phases of the best run (s)"
  printf '%-12s %8s %7s %7s %8s %6s %6s %7s  %s\n' kind nodes wall_s cpu_s peak_MiB t_x10 m_x10 t/chain \
    "load extract transf write release"
  declare -A chain_wall
  for kind in $kinds; do
    prev_wall="" prev_rss=""
    sizes="100000 1000000"
    [ "$kind" = add_relu ] && sizes="10000 100000 1000000"
    [ "$kind" = fan ] && sizes="10000 100000"
    for n in $sizes; do
      model="$work/${kind}_$n.onnx"
      [ -f "$model" ] || "$python" "$here/bench/make_synthetic.py" --kind "$kind" --nodes "$n" --out "$model" >/dev/null
      best_w="" best_c="" best_m="" best_phases=""
      for ((r = 0; r < reps; r++)); do
        run_once "$mo" --input_model "$model" --output_dir "$scratch/syn" --log_level INFO
        if [ -z "$best_w" ] || is_less "$w" "$best_w"; then best_w=$w best_phases=$(phases); fi
        if [ -z "$best_c" ] || is_less "$c" "$best_c"; then best_c=$c; fi
        if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
      done
      rm -rf "$scratch/syn"
      growth_t="-" growth_m="-" per_chain="-"
      if [ -n "$prev_wall" ]; then growth_t=$(calc "$best_w / $prev_wall"); growth_m=$(calc "$best_m / $prev_rss"); fi
      [ "$kind" = add_relu ] && chain_wall[$n]=$best_w
      if [ "$kind" != add_relu ] && [ -n "${chain_wall[$n]:-}" ]; then per_chain=$(calc "$best_w / ${chain_wall[$n]}"); fi
      printf '%-12s %8d %7.2f %7.2f %8.1f %6.4s %6.4s %7.4s  %s\n' "$kind" "$n" "$best_w" "$best_c" \
        "$(calc "$best_m / 1024")" "$growth_t" "$growth_m" "$per_chain" "$best_phases"
      prev_wall=$best_w prev_rss=$best_m
    done
  done
fi

if [[ " $only " == *" tiny "* ]]; then
  echo
  echo "== tiny models"
  best="" best_cpu=""
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f '%e %U %S' -o "$scratch/time" bash -c \
      "for i in \$(seq 50); do '$mo' --input_model '$here/samples/tiny_cnn.prototxt' --output_dir '$scratch/tiny' >/dev/null; done"
    read -r w u s <"$scratch/time"
    ms=$(calc "$w / 50 * 1e3") cpu_ms=$(calc "($u + $s) / 50 * 1e3")
    if [ -z "$best" ] || is_less "$ms" "$best"; then best=$ms; fi
    if [ -z "$best_cpu" ] || is_less "$cpu_ms" "$best_cpu"; then best_cpu=$cpu_ms; fi
  done
  printf 'samples/tiny_cnn.prototxt with the mo command: %.1f ms wall, %.1f ms CPU per conversion (50 runs, best of %d)\n' \
    "$best" "$best_cpu" "$reps"
  build=$(dirname "$(dirname "$mo")")
  if [ -f "$build/python/mo/__init__.py" ]; then
    PYTHONPATH=$build/python "$python" "$here/bench/small_models.py" --rounds "$reps"
  else
    echo "small models through the Python module: skipped (no $build/python/mo)"
  fi
fi
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
