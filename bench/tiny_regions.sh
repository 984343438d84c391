#!/usr/bin/env bash
# What omprof costs per parallel region: bench_omp_tiny_regions forks empty regions on 2 threads
# and prints the steady-state time per region (the median of 40 chunks of its loop; a tool's
# fixed cost per process is bench/fixed_cost.sh's subject). Variants, interleaved, medians and
# ratios paired round by round to the empty tool:
#   no_tool          the program alone;
#   empty_tool       an OMPT tool that registers nothing (the baseline of the target);
#   same_callbacks   a tool registering every callback omprof registers, empty;
#   clock_floor      those callbacks reading CLOCK_MONOTONIC once each (vDSO);
#   tsc_floor        reading the TSC once each instead: the floor of timing waits exactly with
#                    the clock omprof reads where the kernel keeps time with the TSC;
#   omprof           `omprof run`.
# Not a test.
#   bash bench/tiny_regions.sh [runs] [regions]     (defaults 11, 400000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-11}
regions=${2:-400000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
tiny="$build/bench/bench_omp_tiny_regions"
tool="$build/bench/libomprof_empty_tool.so"
per_region() {  # NAME CMD...: appends the program's steady-state ns per region to $out/NAME
  local name=$1
  shift
  printed_once "$name" 's/^median chunk \([0-9.]*\) ns per region/\1/p' "$@"
}
variants=(no_tool empty_tool same_callbacks clock_floor tsc_floor omprof)
for ((i = 0; i < runs; i++)); do
  per_region no_tool "$tiny" "$regions"
  per_region empty_tool env LD_PRELOAD="$tool" "$tiny" "$regions"
  per_region same_callbacks env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=all "$tiny" "$regions"
  per_region clock_floor env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=clock "$tiny" "$regions"
  per_region tsc_floor env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=tsc "$tiny" "$regions"
  per_region omprof "$build/bin/omprof" run -o "$out/p" -- "$tiny" "$regions"
  rm -rf "$out/p"
done
echo "machine: $(nproc --all) vCPUs, kernel $(uname -r), clocksource" \
  "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?');" \
  "$regions empty regions, 2 threads, $runs interleaved runs"
echo "| variant | median ns per region | ratio to empty tool, paired: median (quartiles) |"
echo "|---|---|---|"
for v in "${variants[@]}"; do
  echo "| $v | $(median "$v") | $(paired_ratio empty_tool "$v") |"
done
