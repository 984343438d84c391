#!/usr/bin/env bash
# Overhead and handler-cost benchmarks (not tests). Runs the variants interleaved
# (A B C A B C ...) so that machine noise hits them alike, and prints medians and ratios.
#   bash bench/run.sh [runs]        (default 7 runs of each variant)
# Needs a build (scripts/setup.sh). Results are recorded by hand in docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-7}
omprof="$build/bin/omprof"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source "$here/bench/lib.sh"
prof() { "$omprof" run -o "$out" "$@"; }

echo "machine: $(nproc) cores, $(uname -r); $runs interleaved runs per variant"

cpu="$build/bench/bench_cpu_bound"
for ((i = 0; i < runs; i++)); do
  time_once cpu_none "$cpu"
  time_once cpu_200 prof --rate 200 -- "$cpu"
  time_once cpu_1000 prof --rate 1000 -- "$cpu"
done
echo
echo "## CPU-bound, 2 threads (bench_cpu_bound, 30-frame stacks)"
echo "| variant | median wall s | ratio to no profiler |"
echo "|---|---|---|"
echo "| no profiler | $(median cpu_none) | 1 |"
echo "| omprof 200 Hz | $(median cpu_200) | $(ratio cpu_200 cpu_none) |"
echo "| omprof 1000 Hz | $(median cpu_1000) | $(ratio cpu_1000 cpu_none) |"

# Handler cost measured in-process: the collector times each handler call (clock reads around
# the work, signal delivery excluded). One busy thread, then two (on 2 vCPUs that share a core,
# both threads then run slower, the handler too).
handler_ns() {
  rm -f "$out"/*.omprof
  OMPROF_TIME_HANDLER=1 prof --rate 1000 -- "$cpu" 800000000 "$1" "$2" >/dev/null 2>&1
  "$omprof" report "$out"/*.omprof | awk '/^Handler:/ {print $2}'
}
echo
echo "## Handler cost per sample (OMPROF_TIME_HANDLER=1, 1000 Hz), median of $runs runs"
echo "| stack depth | threads | median ns per sample |"
echo "|---|---|---|"
for config in "30 1" "30 2" "2 1" "60 1"; do
  rm -f "$out/handler"
  for ((i = 0; i < runs; i++)); do handler_ns $config >>"$out/handler"; done
  set -- $config
  echo "| $1 | $2 | $(median handler) |"
done

imb="$build/tests/bin/omp_imbalance_clang"
for ((i = 0; i < runs; i++)); do
  time_once imb_none "$imb" 2 300
  time_once imb_200 prof --rate 200 -- "$imb" 2 300
  time_once imb_1000 prof --rate 1000 -- "$imb" 2 300
  rm -f "$out"/*.omprof
done
echo
echo "## OpenMP: 200,000 empty parallel regions, 2 threads (bench/tiny_regions.sh)"
bash "$here/bench/tiny_regions.sh" "$runs"
echo
echo "## OpenMP: imbalance program (omp_imbalance_clang 2 300)"
echo "| variant | median wall s | ratio to no tool |"
echo "|---|---|---|"
echo "| no tool | $(median imb_none) | 1 |"
echo "| omprof 200 Hz | $(median imb_200) | $(ratio imb_200 imb_none) |"
echo "| omprof 1000 Hz | $(median imb_1000) | $(ratio imb_1000 imb_none) |"

# Explicit regions: Google Benchmark of begin/end pairs (bench/regions.sh).
echo
bash "$here/bench/regions.sh"
