#!/usr/bin/env bash
# What omprof costs per parallel region: bench_omp_tiny_regions forks 200,000 empty regions on 2
# threads and prints the wall time of that loop alone (a tool's fixed cost per process is
# bench/fixed_cost.sh's subject). Variants, interleaved, medians: no tool; an OMPT tool that
# registers nothing; one that registers every callback omprof registers, empty; one that also
# reads the monotonic clock once in each parallel, implicit-task and sync-wait callback (the
# floor of timing waits and fork/join exactly); omprof. Not a test.
#   bash bench/tiny_regions.sh [runs] [regions]     (defaults 11, 200000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-11}
regions=${2:-200000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
tiny="$build/bench/bench_omp_tiny_regions"
tool="$build/bench/libomprof_empty_tool.so"
loop_s() {  # NAME CMD...: appends the program's loop time to $out/NAME
  local name=$1
  shift
  printed_once "$name" 's/.* regions in \([0-9.]*\) s/\1/p' "$@"
}
for ((i = 0; i < runs; i++)); do
  loop_s no_tool "$tiny" "$regions"
  loop_s empty_tool env LD_PRELOAD="$tool" "$tiny" "$regions"
  loop_s same_callbacks env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=all "$tiny" "$regions"
  loop_s callbacks_with_clock env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=clock "$tiny" "$regions"
  loop_s omprof "$build/bin/omprof" run -o "$out/p" -- "$tiny" "$regions"
  rm -rf "$out/p"
done
echo "machine: $(nproc --all) cores, $(uname -r); $regions empty regions, 2 threads, $runs interleaved runs; medians of the loop's wall time"
echo "| variant | median s | ns per region over no tool | ratio to empty tool |"
echo "|---|---|---|---|"
for v in no_tool empty_tool same_callbacks callbacks_with_clock omprof; do
  awk -v name="$v" -v m="$(median "$v")" -v base="$(median no_tool)" -v e="$(median empty_tool)" \
    -v n="$regions" 'BEGIN { printf "| %s | %.4f | %.0f | %.3f |\n", name, m, (m - base) * 1e9 / n, m / e }'
done
