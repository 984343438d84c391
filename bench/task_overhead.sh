#!/usr/bin/env bash
# What omprof costs a task-heavy program (tests/programs/omp_fib: 2.7 million tasks in about
# 0.1 s at n = 30), against the floor any OMPT tool pays: the program's own time for its tasks
# (tasks_s, printed by it), alone, under an OMPT tool that registers nothing, under one with
# empty task_schedule and sync_region_wait callbacks, under omprof (taskwait sampled, the
# default) and under omprof with exact taskwaits. Interleaved runs, medians. Not a test.
#   bash bench/task_overhead.sh [runs] [n] [threads]     (defaults 15, 30, 1)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-15}
n=${2:-30}
export OMP_NUM_THREADS=${3:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
fib="$build/tests/bin/omp_fib_clang"
tool="$build/bench/libomprof_empty_tool.so"
tasks_s() {  # NAME CMD...: appends the program's tasks_s to $out/NAME
  local name=$1
  shift
  printed_once "$name" 's/.*tasks_s=\([0-9.]*\).*/\1/p' "$@"
}
for ((i = 0; i < runs; i++)); do
  tasks_s alone "$fib" "$n"
  tasks_s empty_tool env LD_PRELOAD="$tool" "$fib" "$n"
  tasks_s empty_callbacks env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=1 "$fib" "$n"
  tasks_s omprof "$build/bin/omprof" run -o "$out/p" -- "$fib" "$n"
  tasks_s omprof_exact_taskwait env OMPROF_EXACT_TASKWAIT=1 "$build/bin/omprof" run -o "$out/p" -- "$fib" "$n"
  rm -rf "$out/p"
done
echo "machine: $(nproc --all) cores, $(uname -r); fib($n), $OMP_NUM_THREADS thread(s), $runs interleaved runs; medians of tasks_s"
for v in alone empty_tool empty_callbacks omprof omprof_exact_taskwait; do
  printf "%-22s %.4f s  x%s\n" "$v" "$(median "$v")" "$(ratio "$v" alone)"
done
