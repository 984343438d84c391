#!/usr/bin/env bash
# Two or more collectors side by side on one program that times itself: `omprof run` with each
# collector in turn (OMPROF_LIBRARY; a directory holding libomprof.so, and libomprof_gomp.so for
# libgomp programs), and the program alone, interleaved round by round, the order rotated each
# round; per collector the median of the program's figure and its paired ratio to the first
# (bench/lib.sh paired_ratio: median and quartiles of the per-round ratios). How a change to the
# collector's cost is measured: build the old tree elsewhere, name both. Not a test.
#   COLLECTORS="old=/path/a/lib new=/path/b/lib" bash bench/collector_ab.sh ROUNDS SED_EXPR CMD...
# e.g. SED_EXPR 's/^median chunk \([0-9.]*\) ns per region/\1/p' for bench_omp_tiny_regions.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
rounds=${1:?rounds}
expr=${2:?a sed expression that prints the figure}
shift 2
[ $# -gt 0 ] || { echo "usage: COLLECTORS='a=DIR b=DIR' $0 ROUNDS SED_EXPR CMD..." >&2; exit 2; }
read -r -a collectors <<<"${COLLECTORS:?name=DIR pairs, the first is the reference}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
names=()
for c in "${collectors[@]}"; do
  dir=${c#*=}
  [ -f "$dir/libomprof.so" ] || { echo "collector_ab: no libomprof.so in $dir" >&2; exit 2; }
  names+=("${c%%=*}")
done
names+=(alone)
for ((i = 0; i < rounds; i++)); do
  n=${#names[@]}
  for ((k = 0; k < n; k++)); do
    j=$(((k + i) % n))
    name=${names[$j]}
    if [ "$name" = alone ]; then
      printed_once alone "$expr" "$@"
    else
      dir=${collectors[$j]#*=}
      OMPROF_LIBRARY="$dir/libomprof.so" printed_once "$name" "$expr" \
        "$build/bin/omprof" run -o "$out/p" -- "$@"
      rm -rf "$out/p"
    fi
  done
done
echo "machine: $(nproc --all) vCPUs, kernel $(uname -r); $rounds rounds of: $*"
for name in "${names[@]}"; do
  printf "%-10s median %10s  paired ratio to %s %s\n" "$name" "$(median "$name")" "${names[0]}" \
    "$(paired_ratio "${names[0]}" "$name")"
done
