#!/usr/bin/env bash
# The offline MPI reduction at scale (issue 11: thousands of rank files, streaming, bounded
# memory): synthetic jobs of RANKS rank files (bench/synthetic_profiles.cc: each rank the same
# size, 4 threads, SAMPLES samples over deep stacks, a tree of REGIONS explicit-region paths of
# which each rank runs a rank-dependent subset), then `omprof report DIR` (the ranks summary
# with the POP efficiencies), `--regions` (reduced over ranks) and `--tree` (merged over ranks)
# timed with their peak memory. Memory should grow with ranks x region paths, not with samples;
# the merged tree's with its distinct call paths (each rank its own 100 stacks, or with
# SAME_STACKS=1 the same 100 on every rank, as SPMD codes have). Not a test.
#   bash bench/rank_scale.sh [ranks...]     (default 64 512 4096; 2,000 samples and 200 region
#                                            paths per rank)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
samples_per_rank=${SAMPLES_PER_RANK:-2000}
regions=${REGIONS:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
omprof=$build/bin/omprof
[[ $# -gt 0 ]] || set -- 64 512 4096
echo "machine: $(nproc) cores, $(uname -r); per rank: $samples_per_rank samples, 4 threads," \
  "$regions region paths"
printf '%-6s %-9s %-34s %8s %9s\n' ranks disk command seconds peak_MB
for ranks in "$@"; do
  rm -rf "$out/p" && mkdir "$out/p"
  "$build/bench/bench_synthetic_profiles" "$out/p" $((ranks * samples_per_rank)) $((ranks * 100)) \
    "$ranks" 4 "$regions" ${SAME_STACKS:+same-stacks}
  disk=$(du -sh "$out/p" | cut -f1)
  for view in "" --regions --tree; do
    /usr/bin/time -f "%e %M" -o "$out/time" "$omprof" report "$out/p" $view >"$out/report" 2>&1 ||
      { echo "report $view failed:"; tail -3 "$out/report"; exit 1; }
    read -r seconds kb <"$out/time"
    printf '%-6s %-9s %-34s %8s %9.0f\n' "$ranks" "$disk" "report DIR $view" "$seconds" \
      "$((kb / 1024))"
  done
done
