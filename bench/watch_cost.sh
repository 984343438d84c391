#!/usr/bin/env bash
# What watching a job costs it (issue 42), not a test: LULESH (LULESH=<its binary>) on 2 threads
# under `omprof run`, alone and watched by `omprof top --every 0.5` started beside it, ROUNDS
# interleaved rounds, wall seconds from outside; prints each round and the medians.
#   LULESH=/path/to/lulesh bash bench/watch_cost.sh [rounds] [iterations]   (defaults 3, 400)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
lulesh=${LULESH:?set LULESH to a LULESH 2.0 binary built with OpenMP}
rounds=${1:-3}
iterations=${2:-400}
omprof=$build/bin/omprof
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "machine: $(nproc) cores, $(uname -r)"
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out/a" "$out/b"
  a=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$out/a" -- "$lulesh" -s 30 -i "$iterations")
  (
    for _ in $(seq 1 40); do [ -n "$(ls "$out/b" 2>/dev/null)" ] && break; sleep 0.05; done
    "$omprof" top "$out/b" --every 0.5 >/dev/null 2>&1 || true
  ) &
  watcher=$!
  b=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$out/b" -- "$lulesh" -s 30 -i "$iterations")
  wait "$watcher"
  echo "round $i: unwatched $a watched $b"
  echo "$a $b" >>"$out/rows"
done
echo "medians: unwatched $(cut -d' ' -f1 "$out/rows" | median) watched $(cut -d' ' -f2 "$out/rows" | median)"
