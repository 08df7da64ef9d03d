#!/usr/bin/env bash
# Converts a large model with `mo` and copies its files (the .onnx and its external data) with
# `cp`, in the same run,
# several times, and prints wall time and peak RSS of each (GNU time -v) with the ratios
# mo/cp time and mo peak RSS / model file size. For the whole set of scale figures (synced
# writes, generated LLMs, growth per 10x nodes) see bench/run_all.sh and docs/performance.md.
#
#   bench/convert_vs_cp.sh [MODEL.onnx] [REPETITIONS]
#   MO=path/to/mo bench/convert_vs_cp.sh          (default: build/tools/mo, then build-*/tools/mo)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
model=${1:-/work/models/vgg16_op13/model.onnx}
reps=${2:-3}
mo=${MO:-}
if [ -z "$mo" ]; then
  for candidate in "$here"/build/tools/mo "$here"/build-*/tools/mo; do
    if [ -x "$candidate" ]; then mo=$candidate; break; fi
  done
fi
[ -x "${mo:-}" ] || { echo "mo not found: build it or set MO=path/to/mo" >&2; exit 2; }
[ -f "$model" ] || { echo "model not found: $model" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }

# The model's files: the .onnx and its external data (ONNX's .data, optimum's model.onnx_data).
dir=$(dirname "$model")
files=$(find "$dir/" -maxdepth 1 -type f \( -name "$(basename "$model")" -o -name '*.data*' -o -name '*_data' \) | sort)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
size=$(cat $files | wc -c)
calc() { awk "BEGIN { print ($*) }"; }  # parentheses: a bare > would redirect

# Runs a command under GNU time; sets $wall and $cpu (user + system seconds) and $rss (KiB).
measure() {
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
           n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$work/time.txt")
}

printf 'model: %s (%d MB)\nmo:    %s\n\n' "$model" $((size / 1048576)) "$mo"
printf '%-4s %-10s %9s %9s %10s\n' rep run wall_s cpu_s peak_MB
declare -A best_wall best_cpu best_rss
for ((r = 1; r <= reps; r++)); do
  for run in cp mo_fp32 mo_fp16; do
    rm -rf "$work/out" "$work/copy"
    case $run in
      cp)      mkdir -p "$work/copy"; measure cp $files "$work/copy/" ;;
      mo_fp32) measure "$mo" --input_model "$model" --output_dir "$work/out" --compress_to_fp16=False ;;
      mo_fp16) measure "$mo" --input_model "$model" --output_dir "$work/out" --compress_to_fp16=True ;;
    esac
    printf '%-4s %-10s %9.2f %9.2f %10.1f\n' "$r" "$run" "$wall" "$cpu" "$(calc "$rss / 1024")"
    if [ -z "${best_wall[$run]:-}" ] || [ "$(calc "$wall < ${best_wall[$run]}")" = 1 ]; then
      best_wall[$run]=$wall
    fi
    if [ -z "${best_cpu[$run]:-}" ] || [ "$(calc "$cpu < ${best_cpu[$run]}")" = 1 ]; then best_cpu[$run]=$cpu; fi
    if [ -z "${best_rss[$run]:-}" ] || [ "$rss" -lt "${best_rss[$run]}" ]; then best_rss[$run]=$rss; fi
  done
done

echo
echo "best of $reps (CPU time shown too: wall time"
echo "is noisy on a loaded machine, see the load average below):"
cp_wall=${best_wall[cp]} cp_cpu=${best_cpu[cp]}
for run in mo_fp32 mo_fp16; do
  w=${best_wall[$run]} c=${best_cpu[$run]}
  printf '%-8s wall %6.2f s (cp %5.2f s) ratio %5.2f | cpu %6.2f s (cp %5.2f s) ratio %5.2f | peak RSS %7.1f MB, RSS/file %4.2f\n' \
    "$run" "$w" "$cp_wall" "$(calc "$cp_wall > 0 ? $w / $cp_wall : 0")" \
    "$c" "$cp_cpu" "$(calc "$cp_cpu > 0 ? $c / $cp_cpu : 0")" \
    "$(calc "${best_rss[$run]} / 1024")" "$(calc "${best_rss[$run]} * 1024 / $size")"
done
uptime
