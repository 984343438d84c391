#!/usr/bin/env bash
# What watching a job costs it (issue 42), not a test: LULESH (LULESH=<its binary>) on 2 threads
# under `omprof run`, alone and watched by `omprof top --every 0.5` started beside it, ROUNDS
# interleaved rounds, wall seconds from outside; prints each round and the medians. With
# TOP_BEFORE=<another omprof command>, a third run in each round is watched by that one's `top`
# (a reader before a change, side by side).
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
# Seconds of a run under omprof watched by `$1 top` every 0.5 s; appends the watcher's CPU
# milliseconds per snapshot to $out/cpu.$2.
watched() {
  local dir=$out/w$RANDOM watcher s
  (
    for _ in $(seq 1 40); do [ -n "$(ls "$dir" 2>/dev/null)" ] && break; sleep 0.05; done
    "$1" top "$dir" --every 0.5 --format json >"$dir.snaps" 2>/dev/null || true
    # `times`' second line: the CPU time of this subshell's children (the watcher), m and s.
    times >"$dir.times"  # a builtin's output redirected, not piped: no subshell of its own
    sed -n 2p "$dir.times" | awk -v n="$(wc -l <"$dir.snaps")" '{
      split($1, u, "m"); split($2, k, "m")
      if (n > 0) printf "%.1f\n", 1000 * (u[1] * 60 + u[2] + k[1] * 60 + k[2]) / n }' >>"$out/cpu.$2"
  ) &
  watcher=$!
  s=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$dir" -- "$lulesh" -s 30 -i "$iterations")
  wait "$watcher"
  rm -rf "$dir" "$dir.snaps" "$dir.times"
  echo "$s"
}
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out/a"
  # Odd rounds run unwatched first, even rounds last: a run's place in the round is no bias.
  ((i % 2)) && a=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$out/a" -- "$lulesh" -s 30 -i "$iterations")
  b=$(watched "$omprof" now)
  c=${TOP_BEFORE:+$(watched "$TOP_BEFORE" before)}
  ((i % 2)) || a=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$out/a" -- "$lulesh" -s 30 -i "$iterations")
  echo "round $i: unwatched $a watched $b${c:+ watched-before $c}"
  echo "$a $b ${c:-0}" >>"$out/rows"
done
echo "medians: unwatched $(cut -d' ' -f1 "$out/rows" | median) watched $(cut -d' ' -f2 "$out/rows" | median)${TOP_BEFORE:+ watched-before $(cut -d' ' -f3 "$out/rows" | median)}"
echo "watcher's CPU per snapshot, median ms: $(median <"$out/cpu.now")${TOP_BEFORE:+ before $(median <"$out/cpu.before")}"
