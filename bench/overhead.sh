#!/usr/bin/env bash
# Issue 40's series: what a default `omprof run` costs a real program, beside the other ways to
# run it, interleaved round by round, medians and ratios to the program alone:
#   alone        the program;
#   empty_tool   an OMPT tool that registers nothing (libomp programs only);
#   empty_callbacks  the same tool registering every callback omprof registers, empty, each
#                reading the TSC where omprof reads a clock (libomp): libomp's own cost of a tool
#                that listens where omprof does, the floor of any OMPT design;
#   omprof       `omprof run` with default options;
#   cpu_clock    `omprof run --clock cpu`;
#   gperftools   gperftools' CPU profiler at 200 Hz (LD_PRELOAD=libprofiler.so), when installed
#                (Debian: libgoogle-perftools4; not installed by setup.sh, a comparison only).
# Programs: the fine-grained loop (bench/omp_fine_loop.c: `parallel for` over 4,096 doubles with
# a reduction; its median chunk's time per region) built by clang for libomp and by gcc for
# libgomp; and LULESH 2.0 when LULESH_CLANG / LULESH_GCC name its binaries (wall time of
# `-s 30 -i 100`), which bench/ does not ship (github.com/LLNL/LULESH, built with -O3 -g
# -fopenmp -DUSE_MPI=0). 2 threads. Not a test.
#   bash bench/overhead.sh [runs] [regions]     (defaults 7, 100000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-7}
regions=${2:-100000}
export OMP_NUM_THREADS=2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
tool="$build/bench/libomprof_empty_tool.so"
omprof="$build/bin/omprof"
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so* 2>/dev/null | head -1 || true)

# run_variant KIND NAME VARIANT CMD...: one run of CMD as VARIANT, its number appended to
# $out/NAME.VARIANT (KIND: loop, the program's ns per region; wall, the run's seconds).
run_variant() {
  local kind=$1 name=$2 variant=$3
  shift 3
  local -a pre=()
  case $variant in
    empty_tool) pre=(env LD_PRELOAD="$tool") ;;
    empty_callbacks) pre=(env LD_PRELOAD="$tool" OMPROF_EMPTY_TOOL_CALLBACKS=tsc) ;;
    omprof) pre=("$omprof" run -o "$out/p" --) ;;
    cpu_clock) pre=("$omprof" run --clock cpu -o "$out/p" --) ;;
    gperftools) pre=(env LD_PRELOAD="$profiler" CPUPROFILE="$out/gperf.prof" CPUPROFILE_FREQUENCY=200) ;;
  esac
  if [ "$kind" = loop ]; then
    printed_once "$name.$variant" 's/^median chunk \([0-9.]*\) ns per region/\1/p' "${pre[@]}" "$@"
  else
    time_once "$name.$variant" "${pre[@]}" "$@"
  fi
  rm -rf "$out/p" "$out/gperf.prof"*
}

series=()  # "kind name variants cmd..." entries, one per program
add_series() { series+=("$*"); }
variants_for() {  # libomp programs get the empty tool; gperftools where installed
  local v="alone"
  [ "$1" = libomp ] && v="$v empty_tool empty_callbacks"
  v="$v omprof cpu_clock"
  [ -n "$profiler" ] && v="$v gperftools"
  echo "$v"
}
add_series loop fine_loop_libomp "$(variants_for libomp)" "$build/bench/bench_omp_fine_loop" "$regions"
add_series loop fine_loop_libgomp "$(variants_for libgomp)" "$build/bench/bench_gomp_fine_loop" "$regions"
[ -n "${LULESH_CLANG:-}" ] && add_series wall lulesh_clang "$(variants_for libomp)" "$LULESH_CLANG" -s 30 -i 100
[ -n "${LULESH_GCC:-}" ] && add_series wall lulesh_gcc "$(variants_for libgomp)" "$LULESH_GCC" -s 30 -i 100

for ((i = 0; i < runs; i++)); do
  for entry in "${series[@]}"; do
    read -r kind name variants_and_cmd <<<"$entry"
    # shellcheck disable=SC2086
    set -- $variants_and_cmd
    vs=()
    while [ $# -gt 0 ] && [[ "$1" =~ ^(alone|empty_tool|empty_callbacks|omprof|cpu_clock|gperftools)$ ]]; do
      vs+=("$1")
      shift
    done
    for v in "${vs[@]}"; do run_variant "$kind" "$name" "$v" "$@"; done
  done
done

echo "machine: $(nproc --all) vCPUs, kernel $(uname -r), clocksource" \
  "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)," \
  "$(systemd-detect-virt 2>/dev/null || echo unknown) virtualization; $runs rounds"
[ -z "$profiler" ] && echo "gperftools: not installed (libgoogle-perftools4), left out"
for entry in "${series[@]}"; do
  read -r kind name _ <<<"$entry"
  unit=$([ "$kind" = loop ] && echo "ns/region" || echo "s")
  for f in "$out/$name".*; do
    v=${f##*.}
    printf "%-18s %-11s median %10s %-9s  x%s alone\n" "$name" "$v" "$(median "$name.$v")" "$unit" \
      "$(ratio "$name.$v" "$name.alone")"
  done
done
