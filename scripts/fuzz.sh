#!/usr/bin/env bash
# Runs the libFuzzer targets of a MO_FUZZ build (docs/hardening.md) and prints, per target, the
# executions, the coverage reached, the corpus size and the crashes (files crash-* / leak-* /
# timeout-* / oom-* this run left in its work directory).
#
#   scripts/fuzz.sh [-t SECONDS] [-b BUILD_DIR] [-w WORK_DIR] [TARGET ...]   fuzz each target
#   scripts/fuzz.sh --smoke [-t SECONDS] [-b BUILD_DIR]   CI: every seed and regression input once,
#                                                         then SECONDS of fuzzing (default 5)
#
# Targets: onnx onnx_text onnx_external tflite tf tfjs caffe ir npy transformations_config cli (all by
# default). Each fuzzes from its seeds (test data, fuzz/seeds/<target>), its regression inputs
# (fuzz/regressions/<target>) and its dictionary (fuzz/dicts/<target>.dict), with libFuzzer's
# limits set to what mo promises: 10 s per input, 2 GB of memory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60 build="$root/build-fuzz" work=${TMPDIR:-/tmp}/mo-fuzz-work smoke=0 targets=()
while [ $# -gt 0 ]; do
  case $1 in
    -t) seconds=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    --smoke) smoke=1; seconds=5; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(onnx onnx_text onnx_external tflite tf tfjs caffe ir npy transformations_config cli)

seeds() {  # the read-only seed directories of target $1 that exist
  local dirs=("$root/fuzz/seeds/$1" "$root/fuzz/regressions/$1")
  case $1 in
    onnx) dirs+=("$root/tests/e2e/data" /usr/share/libonnx-testdata/data/node) ;;
    onnx_text) dirs+=("$root/samples") ;;
    tflite) dirs+=("$root/tests/e2e/data/tflite_int8" "$root/tests/e2e/data/tflite_control_flow") ;;
    caffe) dirs+=("$root/tests/e2e/data/caffe") ;;
    npy) dirs+=("$root/tests/e2e/data") ;;
  esac
  for d in "${dirs[@]}"; do [ -d "$d" ] && echo "$d"; done
}

status=0
printf '%-24s %12s %8s %8s %8s\n' target executions coverage corpus crashes
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "$bin not built: configure with clang and -DMO_FUZZ=ON" >&2; exit 2; }
  dir="$work/$t"
  mkdir -p "$dir/corpus"
  mapfile -t seed_dirs < <(seeds "$t")
  opts=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/")
  [ -f "$root/fuzz/dicts/$t.dict" ] && opts+=(-dict="$root/fuzz/dicts/$t.dict")
  rc=0
  touch "$dir/.start"  # crashes are counted from here: the work directory may hold earlier ones
  if [ $smoke = 1 ]; then
    # Each seed and regression input once: a failure is a regression.
    "$bin" "${opts[@]}" -runs=0 "${seed_dirs[@]}" > "$dir/replay.log" 2>&1 || rc=$?
    [ $rc = 0 ] || { echo "fuzz_$t failed on its seeds or regression inputs:" >&2; tail -40 "$dir/replay.log" >&2; }
  fi
  if [ $rc = 0 ]; then
    "$bin" "${opts[@]}" -max_total_time="$seconds" "$dir/corpus" "${seed_dirs[@]}" > "$dir/fuzz.log" 2>&1 || rc=$?
    [ $rc = 0 ] || { echo "fuzz_$t found a failure:" >&2; tail -40 "$dir/fuzz.log" >&2; }
  fi
  log="$dir/fuzz.log"; [ -f "$log" ] || log="$dir/replay.log"
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  corpus=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(find "$dir" -maxdepth 1 -type f -newer "$dir/.start" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-24s %12s %8s %8s %8s\n' "$t" "$execs" "$cov" "$corpus" "$crashes"
  [ $rc = 0 ] || status=1
done
exit $status
