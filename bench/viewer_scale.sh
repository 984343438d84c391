#!/usr/bin/env bash
# The viewer at scale (issue 12's goals: `report` under 2 s and 1 GiB, `view` under 5 s with an
# HTML file under 20 MB): synthetic rank profiles (bench/synthetic_profiles.cc: 1,000,000
# samples over 100,000 distinct stacks, 6 to 40 frames deep, 8 ranks x 16 threads), then each
# command timed (median of N runs) with its peak memory. Not a test.
#   bash bench/viewer_scale.sh [runs] [samples] [stacks]     (defaults 3 1000000 100000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-3}
samples=${2:-1000000}
stacks=${3:-100000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/profiles"
"$build/bench/bench_synthetic_profiles" "$out/profiles" "$samples" "$stacks" 8 16
echo "machine: $(nproc) cores, $(uname -r); $samples samples, $stacks stacks, 8 ranks x 16" \
  "threads, $(du -sh "$out/profiles" | cut -f1) of profiles; median of $runs runs"
measure() {
  local name=$1
  shift
  : >"$out/$name"
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$out/$name.one" "$@" >/dev/null 2>&1
    cat "$out/$name.one" >>"$out/$name"
  done
  sort -n "$out/$name" | awk -v name="$name" '{t[NR] = $1; m[NR] = $2}
    END { i = int((NR + 1) / 2); printf "%-44s %6.2f s  %7.0f MB\n", name, t[i], m[i] / 1024 }'
}
omprof=$build/bin/omprof
measure "report DIR (ranks summary)" "$omprof" report "$out/profiles"
measure "report DIR --flat --tree (merged over ranks)" "$omprof" report "$out/profiles" --flat --tree
measure "report DIR --rank 3 --flat --tree --lines" "$omprof" report "$out/profiles" --rank 3 \
  --flat --tree --lines
measure "report DIR --json --flat --tree (all rows)" "$omprof" report "$out/profiles" --json \
  --flat --tree
measure "view DIR -o page.html" "$omprof" view "$out/profiles" -o "$out/page.html"
echo "view: page.html is $(du -h "$out/page.html" | cut -f1)"
