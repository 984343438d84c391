#!/usr/bin/env bash
# What recording deferred tasks' creation paths costs (docs/performance.md): a stream of small
# deferred tasks from one producer (bench/omp_task_stream.c) and recursive fib tasks
# (tests/programs/omp_fib), each alone, under an OMPT tool that registers nothing, under an
# older omprof build (OMPROF_BEFORE: a build directory, optional), and under this build with
# creation paths off (OMPROF_TASK_PATHS=0) and on (the default). Interleaved runs, medians of
# the programs' own timing of their task phase. Not a test.
#   bash bench/task_paths.sh [runs] [stream tasks] [fib n] [threads]   (15, 200000, 30, 2)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
before=${OMPROF_BEFORE:-}
runs=${1:-15}
tasks=${2:-200000}
n=${3:-30}
export OMP_NUM_THREADS=${4:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
tool="$build/bench/libomprof_empty_tool.so"
expr='s/.*tasks_s=\([0-9.]*\).*/\1/p'
variants=(alone empty_tool)
[[ -n $before ]] && variants+=(before)
variants+=(paths_off paths_on)
for ((i = 0; i < runs; i++)); do
  for prog in stream fib; do
    if [[ $prog == stream ]]; then cmd=("$build/bench/bench_omp_task_stream" "$tasks"); else
      cmd=("$build/tests/bin/omp_fib_clang" "$n"); fi
    printed_once "${prog}_alone" "$expr" "${cmd[@]}"
    printed_once "${prog}_empty_tool" "$expr" env LD_PRELOAD="$tool" "${cmd[@]}"
    [[ -n $before ]] && printed_once "${prog}_before" "$expr" "$before/bin/omprof" run -o "$out/p" -- "${cmd[@]}"
    printed_once "${prog}_paths_off" "$expr" env OMPROF_TASK_PATHS=0 "$build/bin/omprof" run -o "$out/p" -- "${cmd[@]}"
    printed_once "${prog}_paths_on" "$expr" "$build/bin/omprof" run -o "$out/p" -- "${cmd[@]}"
    rm -rf "$out/p"
  done
done
echo "machine: $(nproc --all) cores, $(uname -r); $OMP_NUM_THREADS threads, $runs interleaved runs; medians of tasks_s"
for prog in stream fib; do
  [[ $prog == stream ]] && echo "stream of $tasks deferred tasks:" || echo "fib($n):"
  for v in "${variants[@]}"; do
    printf "  %-12s %.4f s  x%s\n" "$v" "$(median "${prog}_$v")" "$(ratio "${prog}_$v" "${prog}_alone")"
  done
done
