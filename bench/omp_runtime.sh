#!/usr/bin/env bash
# A gcc-built (libgomp) program's run time alone and under omprof on each OpenMP runtime:
# --omp-runtime=native (libgomp, omprof's wrappers of its entry points) and the default (the
# program run on LLVM libomp, for OMPT). Each round runs every variant once, in turn
# (interleaved); medians of the wall times. BUSY=1 runs one CPU burner beside the program for the
# whole benchmark. Not a test.
#   [BUSY=1] bash bench/omp_runtime.sh ROUNDS -- PROGRAM ARGS...
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$here/bench/lib.sh"
build=${OMPROF_BUILD_DIR:-$here/build}
rounds=${1:?rounds}
shift
[[ ${1:-} == -- ]] && shift
out=$(mktemp -d)
burner_pid=
trap '[[ -n $burner_pid ]] && kill $burner_pid 2>/dev/null; rm -rf "$out"' EXIT
if [[ ${BUSY:-0} == 1 ]]; then
  (while :; do :; done) &
  burner_pid=$!
fi
omprof=$build/bin/omprof
variants=(alone native libomp)
for ((r = 0; r < rounds; r++)); do
  for v in "${variants[@]}"; do
    case $v in
      alone) cmd=("$@") ;;
      native) cmd=("$omprof" run --omp-runtime=native -o "$out/p" -- "$@") ;;
      libomp) cmd=("$omprof" run --omp-runtime=libomp -o "$out/p" -- "$@") ;;
    esac
    /usr/bin/time -f "%e" -o "$out/t" "${cmd[@]}" >/dev/null 2>"$out/err"
    cat "$out/t" >>"$out/$v"
    rm -rf "$out/p"
  done
done
echo "machine: $(nproc) cores, $(uname -r); busy: ${BUSY:-0}; $rounds rounds"
print_medians alone "${variants[@]}"
