#!/usr/bin/env bash
# What `omprof scaling` costs (issue 43), not a test: RUNS synthetic jobs of RANKS rank files
# each (bench/synthetic_profiles.cc: 4 threads, SAMPLES samples per rank over deep stacks, 200
# explicit-region paths), analysed together, text and JSON; median wall seconds of 3 and the
# peak memory. Every profile is read once, one at a time, and reduced to its class times per
# call path, parallel region and explicit region: time grows with ranks x samples, memory with
# the distinct paths.
#   bash bench/scaling.sh [ranks] [runs]     (default 64 ranks, 3 runs; 2,000 samples per rank)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
ranks=${1:-64}
runs=${2:-3}
samples_per_rank=${SAMPLES_PER_RANK:-2000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
omprof=$build/bin/omprof
dirs=()
for ((r = 0; r < runs; r++)); do
  mkdir "$out/run$r"
  "$build/bench/bench_synthetic_profiles" "$out/run$r" $((ranks * samples_per_rank)) \
    $((ranks * 100)) "$ranks" 4 200 >/dev/null
  dirs+=("$out/run$r")
done
echo "machine: $(nproc) cores, $(uname -r); $runs runs of $ranks ranks," \
  "$samples_per_rank samples per rank, $(du -sh "$out" | cut -f1) on disk"
for format in text json; do
  for ((i = 0; i < 3; i++)); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$omprof" scaling --format $format "${dirs[@]}" \
      >"$out/report" 2>&1 || { echo "scaling failed:"; tail -3 "$out/report"; exit 1; }
    read -r seconds kb <"$out/time"
    echo "$seconds" >>"$out/$format"
    echo "$((kb / 1024))" >>"$out/$format.mb"
  done
  printf 'omprof scaling --format %-4s  median %6.2f s  peak %5.0f MB\n' $format \
    "$(median $format)" "$(median $format.mb)"
done
