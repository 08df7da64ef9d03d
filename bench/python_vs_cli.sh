#!/usr/bin/env bash
# The cost of converting from Python over the `mo` command, in one run: the same model and
# flags through `mo`, through `python3 -c "mo.save_model(mo.convert_model(...))"` (a whole
# process: interpreter, numpy, import mo) and through `python3 -c "import mo"` alone, each
# REPETITIONS times under GNU time; prints every run and the best wall time and peak RSS of each,
# with the differences Python - CLI. Both write the same IR bytes (checked here too).
#
#   bench/python_vs_cli.sh MODEL [REPETITIONS]     e.g. samples/tiny_cnn.prototxt, or a
#   generated LLM: bench/make_llm.py --out DIR --size 500M --hidden 1024 --ffn 2816 --heads 16 --kv_heads 8
#   BUILD=build-dir bench/python_vs_cli.sh ...    (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
model=$(realpath "$1")
reps=${2:-3}
build=$(realpath "${BUILD:-$here/build}")
[ -x "$build/tools/mo" ] && [ -f "$build/python/mo/__init__.py" ] ||
  { echo "build mo and its Python module first (cmake --build $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONPATH=$build/python

# Runs a command under GNU time; sets $wall (s) and $rss (MiB).
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time.txt" "$@" >/dev/null
  read -r wall kib < "$work/time.txt"
  rss=$(awk "BEGIN { printf \"%.0f\", $kib / 1024 }")
}

declare -A best_wall best_rss
record() {
  printf '%-4s %-12s %8.3f %9s\n' "$1" "$2" "$wall" "$rss"
  if [ -z "${best_wall[$2]:-}" ] || awk "BEGIN { exit !($wall < ${best_wall[$2]}) }"; then best_wall[$2]=$wall; fi
  if [ "$rss" != - ] && { [ -z "${best_rss[$2]:-}" ] || [ "$rss" -lt "${best_rss[$2]}" ]; }; then best_rss[$2]=$rss; fi
}

stem=$(basename "${model%.*}")
printf 'model: %s (%s)\n\n%-4s %-12s %8s %9s\n' "$model" "$(du -shL "$(dirname "$model")" | cut -f1) in its folder" rep run wall_s peak_MiB
for ((r = 1; r <= reps; r++)); do
  rm -rf "$work/cli" "$work/py"
  measure "$build/tools/mo" --input_model "$model" --output_dir "$work/cli"; record "$r" cli
  measure /usr/bin/python3 -c "import mo, time; t = time.perf_counter()
mo.save_model(mo.convert_model('$model'), '$work/py/$stem.xml')
open('$work/call.txt', 'w').write(str(time.perf_counter() - t))"
  record "$r" python
  wall=$(cat "$work/call.txt") rss=-; record "$r" call_only
  measure /usr/bin/python3 -c "import mo"; record "$r" import_only
  cmp -s "$work/cli/$stem.bin" "$work/py/$stem.bin" && cmp -s "$work/cli/$stem.xml" "$work/py/$stem.xml" ||
    { echo "the IRs differ" >&2; exit 1; }
done
printf '\nbest of %d: cli %.3f s %s MiB, python %.3f s %s MiB (of which the call %.3f s), import mo alone %.3f s %s MiB\n' \
  "$reps" "${best_wall[cli]}" "${best_rss[cli]}" "${best_wall[python]}" "${best_rss[python]}" "${best_wall[call_only]}" \
  "${best_wall[import_only]}" "${best_rss[import_only]}"
printf 'python - cli: %+.3f s, %+d MiB\n' "$(awk "BEGIN { print ${best_wall[python]} - ${best_wall[cli]} }")" \
  $((best_rss[python] - best_rss[cli]))
