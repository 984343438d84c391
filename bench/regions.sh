#!/usr/bin/env bash
# Explicit regions: Google Benchmark of begin/end pairs, CPU time per pair and thread, at 1, 2
# and 4 threads, next to the clock floors measured in the same run: without the collector (the
# no-op API library), with it (wall time only, the default), and with OMPROF_REGION_CPU=1
# (`omprof run --region-cpu`: thread CPU time too), and with counters without and with
# OMPROF_REGION_COUNTERS=1 (`--region-counters`). Part of bench/run.sh; alone:
#   bash bench/regions.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "## Explicit regions: one begin/end pair (Google Benchmark, CPU time per pair and thread)"
echo "machine: $(nproc) vCPUs, kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?')"
regions_bench() {
  "$@" "$build/bench/bench_regions" --benchmark_min_time=0.5 --benchmark_format=csv 2>/dev/null |
    awk -F, 'NR > 1 { gsub(/"/, "", $1); printf "| %s | %.1f |\n", $1, $4 }'
}
collector=(env LD_PRELOAD="$build/lib/libomprof.so" OMPROF_OUTPUT="$out")
echo "### no collector (libomprof_api no-ops)"
echo "| benchmark | ns |"
echo "|---|---|"
regions_bench env
echo "### collector preloaded (wall time only, the default)"
echo "| benchmark | ns |"
echo "|---|---|"
regions_bench "${collector[@]}"
echo "### collector preloaded, OMPROF_REGION_CPU=1 (wall and thread CPU time per region)"
echo "| benchmark | ns |"
echo "|---|---|"
regions_bench "${collector[@]}" OMPROF_REGION_CPU=1
echo "### collector preloaded, OMPROF_COUNTERS=page-faults,context-switches (counted, not read by regions)"
echo "| benchmark | ns |"
echo "|---|---|"
regions_bench "${collector[@]}" OMPROF_COUNTERS=page-faults,context-switches
echo "### the same and OMPROF_REGION_COUNTERS=1 (--region-counters: the group read at begin and end)"
echo "| benchmark | ns |"
echo "|---|---|"
regions_bench "${collector[@]}" OMPROF_COUNTERS=page-faults,context-switches OMPROF_REGION_COUNTERS=1
