#!/usr/bin/env bash
# What omprof costs a program on GNU libgomp (no OMPT: omprof's wrappers of libgomp's entry
# points, gomp/) per parallel region and per explicit barrier, 2 threads, against the program
# alone, ratios paired round by round (bench/lib.sh):
#   regions   bench_gomp_tiny_regions (omp_tiny_regions.c built with gcc): empty regions;
#   barriers  bench_gomp_barrier_loop (omp_barrier_loop.c built with gcc): explicit barriers.
# Not a test.
#   bash bench/gomp_sync.sh [runs] [count]     (defaults 11, 400000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-11}
count=${2:-400000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
steady() {  # NAME CMD...: the program's median-chunk ns per region or barrier
  local name=$1
  shift
  printed_once "$name" 's/^median chunk \([0-9.]*\) ns per .*/\1/p' "$@"
}
for bin in "$build/bench/bench_gomp_tiny_regions" "$build/bench/bench_gomp_barrier_loop"; do
  ldd "$bin" | grep -q libgomp || echo "note: $bin does not run on libgomp (not built with gcc?)"
done
for ((i = 0; i < runs; i++)); do
  for p in regions barriers; do
    [[ $p == regions ]] && bin="$build/bench/bench_gomp_tiny_regions" ||
      bin="$build/bench/bench_gomp_barrier_loop"
    steady "${p}_alone" "$bin" "$count"
    steady "${p}_omprof" "$build/bin/omprof" run -o "$out/p" -- "$bin" "$count"
    rm -rf "$out/p"
  done
done
echo "machine: $(nproc --all) vCPUs, kernel $(uname -r); gcc, GNU libgomp, 2 threads," \
  "$count each, $runs interleaved runs"
echo "| workload | alone, ns each | omprof, ns each | ratio, paired: median (quartiles) |"
echo "|---|---|---|---|"
for p in regions barriers; do
  echo "| $p | $(median "${p}_alone") | $(median "${p}_omprof") |" \
    "$(paired_ratio "${p}_alone" "${p}_omprof") |"
done
