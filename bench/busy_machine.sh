#!/usr/bin/env bash
# A program's run time on a busy machine, alone and under omprof's clocks: one CPU burner runs
# beside the program for the whole benchmark, and each round runs every variant once, in turn
# (interleaved, so that the machine's drift hits all alike); medians of the wall times. Not a
# test. Variants: alone; `omprof run` (default: the task clock, which threads that switch too
# often leave, docs/semantics.md "Clocks"); `--clock task` (kept); `--clock cpu`.
#   bash bench/busy_machine.sh ROUNDS -- PROGRAM ARGS...
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
trap 'kill $burner_pid 2>/dev/null; rm -rf "$out"' EXIT
(while :; do :; done) &
burner_pid=$!
omprof=$build/bin/omprof
variants=(alone default task cpu)
for ((r = 0; r < rounds; r++)); do
  for v in "${variants[@]}"; do
    case $v in
      alone) cmd=("$@") ;;
      default) cmd=("$omprof" run -o "$out/p" -- "$@") ;;
      *) cmd=("$omprof" run --clock "$v" -o "$out/p" -- "$@") ;;
    esac
    /usr/bin/time -f "%e" -o "$out/t" "${cmd[@]}" >/dev/null 2>"$out/err"
    cat "$out/t" >>"$out/$v"
    [[ $v == default ]] && grep -h "moved from the task clock" "$out/err" | head -1 >>"$out/moved" || true
    rm -rf "$out/p"
  done
done
echo "machine: $(nproc) cores, $(uname -r); one CPU burner beside the program; $rounds rounds"
print_medians alone "${variants[@]}"
[[ -s $out/moved ]] && echo "default: $(sort | uniq -c <"$out/moved" | head -3)"
true
