#!/usr/bin/env bash
# Where a thread's time off the CPU is placed: bench/omp_mixed_constructs.c (five regions of
# different constructs, each region's wall time measured in the program) under omprof, its
# builds with clang (libomp, OMPT) and gcc (libgomp), beside BURNERS CPU burners with THREADS
# threads. For each region, its thread time in the profile (`report --parallel-regions`
# incl_s) against THREADS x its wall time: every thread of the team is in the region from fork
# to join, working, waiting or off the CPU, so the two agree when the time off the CPU is
# placed right. Prints each region's error and the RMS over regions, per run. With
# OMPROF_BEFORE=<an older libomprof.so>, each round also runs that collector, side by side;
# OMPROF_BUILDS="clang" (or "gcc") runs one build only. Not a test.
#   bash bench/offcpu_placement.sh ROUNDS BURNERS THREADS [REPS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
rounds=${1:?rounds} burners=${2:?burners} threads=${3:?threads} reps=${4:-20}
out=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$out"' EXIT
clang -O2 -g -fopenmp "$here/bench/omp_mixed_constructs.c" -o "$out/mixed_clang"
gcc -O2 -g -fopenmp -fno-optimize-sibling-calls "$here/bench/omp_mixed_constructs.c" \
  -o "$out/mixed_gcc"
for ((b = 0; b < burners; b++)); do
  (while :; do :; done) &
  pids+=($!)
done
collectors=(now)
[[ -n ${OMPROF_BEFORE:-} ]] && collectors=(before now)

# errors PROGRAM_OUTPUT PROFILE_DIR: each region's incl_s - threads x wall, then the RMS.
errors() {
  "$build/bin/omprof" report "$2" --parallel-regions --json | python3 -c '
import json, sys
threads = int(sys.argv[2])
walls = {}
for line in open(sys.argv[1]):
    if line.startswith("wall "):
        _, name, line_no, secs = line.split()
        walls[name] = (line_no, float(secs))
regions = json.load(sys.stdin)["parallel_regions"]
errs = []
for name, (line_no, wall) in walls.items():
    # clang calls the runtime from the region function as a tail call: the region is at the
    # call in main; gcc keeps the function.
    hits = [r for r in regions if r["function"] == name or r["region"].endswith(":" + line_no)]
    incl = sum(r["incl_s"] for r in hits)
    errs.append(incl - threads * wall)
    print("%s %+.3f" % (name.replace("region_", ""), incl - threads * wall), end="  ")
print("rms %.3f" % (sum(e * e for e in errs) / len(errs)) ** 0.5)
' "$1" "$threads"
}

echo "machine: $(nproc) CPUs, $(uname -r); $burners burners, $threads threads, $reps reps"
for ((r = 0; r < rounds; r++)); do
  for build_name in ${OMPROF_BUILDS:-clang gcc}; do
    for c in "${collectors[@]}"; do
      lib=()
      [[ $c == before ]] && lib=(env OMPROF_LIBRARY="$OMPROF_BEFORE")
      rm -rf "$out/p"
      "${lib[@]}" "$build/bin/omprof" run -o "$out/p" -- "$out/mixed_$build_name" "$reps" \
        "$threads" >"$out/stdout" 2>/dev/null
      printf "%-5s %-6s " "$build_name" "$c"
      errors "$out/stdout" "$out/p"
    done
  done
done
