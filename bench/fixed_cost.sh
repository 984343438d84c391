#!/usr/bin/env bash
# omprof's fixed cost per process: a tiny OpenMP program (about 1 ms of work, 2 threads) alone
# and under each layer of omprof, interleaved (A B C ... A B C) so that machine noise hits them
# alike; medians of wall time and the peak RSS. Not a test.
#   bash bench/fixed_cost.sh [runs]     (default 41)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-41}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
tiny=${TINY:-$build/bench/bench_omp_tiny}  # TINY=: another build of omp_tiny.c (gcc: libgomp)
lib="$build/lib/libomprof.so"
profiles="$out/profiles"
mkdir -p "$profiles"
export OMP_NUM_THREADS=2

for ((i = 0; i < runs; i++)); do
  time_once alone "$tiny"
  time_once env env "$tiny"
  time_once preload_off env LD_PRELOAD="$lib" OMPROF_ROOT_PID=1 "$tiny"
  time_once preload_on env LD_PRELOAD="$lib" OMPROF_OUTPUT="$profiles" "$tiny"
  time_once launcher "$build/bin/omprof" --version
  time_once omprof_run "$build/bin/omprof" run -o "$profiles" -- "$tiny"
  rm -f "$profiles"/*
done
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
ms() { awk -v s="$(median "$1")" 'BEGIN { printf "%.1f", s * 1000 }'; }
echo "machine: $(nproc) cores, $(uname -r); $runs interleaved runs per variant; medians"
echo "| variant | ms | added over the previous row |"
echo "|---|---|---|"
prev=""
for v in alone env preload_off preload_on omprof_run; do
  if [ -z "$prev" ]; then d="-"; else d=$(awk -v a="$(median $v)" -v b="$(median $prev)" 'BEGIN { printf "%.1f", (a - b) * 1000 }'); fi
  echo "| $v | $(ms $v) | $d |"
  prev=$v
done
echo "| (omprof --version alone) | $(ms launcher) | |"
echo "added by omprof run over the program alone: $(awk -v a="$(median omprof_run)" -v b="$(median alone)" 'BEGIN { printf "%.1f ms", (a - b) * 1000 }')"
echo "peak RSS: alone $(rss "$tiny") KB, omprof run $(rss "$build/bin/omprof" run -o "$profiles" -- "$tiny") KB"
