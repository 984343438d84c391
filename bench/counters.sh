#!/usr/bin/env bash
# What `--counters` costs (issue 41), not a test: wall time of a CPU-bound 2-thread program
# (bench/cpu_bound.c) alone, under `omprof run` without counters, with one kernel event and with
# four, at 200 Hz and at 1 kHz; interleaved rounds, medians, and each variant's ratio to omprof
# without counters paired round by round. The counters add one fstat and one read per sample
# (the group's values in one read, whatever the number of events): the 1 kHz rows show that
# per-sample cost five times larger. With LULESH=<binary> (github.com/LLNL/LULESH, -s 30 -i 100)
# the same on a real program.
#   bash bench/counters.sh [runs]     (default 7)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-7}
omprof="$build/bin/omprof"
cpu=("$build/bench/bench_cpu_bound" 600000000)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$here/bench/lib.sh"
export OMP_NUM_THREADS=2

one=page-faults
four=page-faults,context-switches,cpu-migrations,minor-faults
programs=(cpu)
[ -n "${LULESH:-}" ] && programs+=(lulesh)
run_of() {  # PROGRAM: its command
  if [ "$1" = cpu ]; then echo "${cpu[@]}"; else echo "$LULESH -s 30 -i 100"; fi
}
for ((i = 0; i < runs; i++)); do
  for prog in "${programs[@]}"; do
    # shellcheck disable=SC2207
    cmd=($(run_of "$prog"))
    time_once "$prog.alone" "${cmd[@]}"
    for rate in 200 1000; do
      time_once "$prog.omprof_$rate" "$omprof" run --rate $rate -o "$out/p" -- "${cmd[@]}"
      time_once "$prog.one_$rate" "$omprof" run --rate $rate --counters $one -o "$out/p" -- "${cmd[@]}"
      time_once "$prog.four_$rate" "$omprof" run --rate $rate --counters $four -o "$out/p" -- "${cmd[@]}"
      rm -rf "$out/p"
    done
  done
done
echo "machine: $(nproc --all) vCPUs, kernel $(uname -r), $(systemd-detect-virt 2>/dev/null || echo unknown) virtualization; $runs rounds"
echo "| program | variant | median s | x alone | x omprof at the same rate (paired: median, quartiles) |"
echo "|---|---|---|---|---|"
for prog in "${programs[@]}"; do
  echo "| $prog | alone | $(median "$prog.alone") | 1.000 | |"
  for rate in 200 1000; do
    for v in omprof one four; do
      name="$prog.${v}_$rate"
      base="$prog.omprof_$rate"
      printf "| %s | %s %s Hz | %s | %s | %s |\n" "$prog" "$v" "$rate" "$(median "$name")" \
        "$(ratio "$name" "$prog.alone")" "$([ "$v" = omprof ] && echo - || paired_ratio "$base" "$name")"
    done
  done
done
