#!/usr/bin/env bash
# The sampling clocks side by side (not a test): wall time of a CPU-bound 2-thread program
# with no profiler, --clock cpu and --clock task at 200 Hz and 1 kHz, interleaved runs, medians
# and ratios; then how many samples each clock delivered per CPU second.
#   bash bench/clocks.sh [runs]     (default 7)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-7}
omprof="$build/bin/omprof"
cpu="$build/bench/bench_cpu_bound"
iterations=600000000
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source "$here/bench/lib.sh"

variants=(none cpu_200 task_200 cpu_1000 task_1000)
echo "machine: $(nproc) cores, $(uname -r); $runs interleaved runs per variant"
for ((i = 0; i < runs; i++)); do
  time_once none "$cpu" $iterations
  for v in "${variants[@]:1}"; do
    time_once "$v" "$omprof" run --clock "${v%_*}" --rate "${v#*_}" -o "$out/p_$v" -- "$cpu" $iterations
  done
done
echo "| variant | median wall s | ratio to no profiler | samples per CPU-second |"
echo "|---|---|---|---|"
for v in "${variants[@]}"; do
  rate="-"
  if [ "$v" != none ]; then
    rate=$("$omprof" report --threads "$(ls "$out/p_$v"/*.omprof | head -1)" |
      awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ /{s += $3; c += $5} END {printf "%.0f", s / c}')
  fi
  echo "| $v | $(median "$v") | $(awk -v a="$(median "$v")" -v b="$(median none)" 'BEGIN {printf "%.3f", a / b}') | $rate |"
done
