#!/usr/bin/env bash
# The in-job MPI summary's cost (not a test): the reduction rank 0 reports in its summary
# ("reduced over N ranks in X ms inside MPI_Finalize"), for 2, 4, 8 and 16 ranks (oversubscribed
# on small machines) and two numbers of region paths, median of the runs.
#   bash bench/mpi_summary.sh [runs]        (default 5)
# Results are recorded by hand in docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-5}
omprof="$build/bin/omprof"
prog="$build/bench/bench_mpi_regions"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$prog" ] || { echo "no $prog (built only with MPI)"; exit 1; }

# One run: "total_ms snapshot_ms messages bytes" from rank 0's summary footer.
reduction() {  # ranks paths
  rm -rf "$out/run"
  mpirun --allow-run-as-root --oversubscribe -np "$1" "$omprof" run -o "$out/run" -- "$prog" "$2" \
    >/dev/null 2>&1
  sed -n 's/.*in \([0-9.]*\) ms inside MPI_Finalize: \([0-9.]*\) ms .*, \([0-9]*\) messages of \([0-9]*\) bytes.*/\1 \2 \3 \4/p' \
    "$out"/run/*.summary.txt
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "machine: $(nproc) cores, $(uname -r); median of $runs runs per row"
echo "| ranks | paths | reduction ms (rank 0) | rank 0's own numbers ms | messages to rank 0 | bytes to rank 0 |"
echo "|---|---|---|---|---|---|"
for paths in 100 1000; do
  for ranks in 2 4 8 16; do
    for ((i = 0; i < runs; i++)); do reduction "$ranks" "$paths"; done >"$out/rows"
    echo "| $ranks | $paths | $(cut -d' ' -f1 "$out/rows" | median) | $(cut -d' ' -f2 "$out/rows" | median) |" \
      "$(cut -d' ' -f3 "$out/rows" | median) | $(cut -d' ' -f4 "$out/rows" | median) |"
  done
done
