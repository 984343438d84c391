#!/usr/bin/env bash
# What one sampling signal costs a program on this machine, by mechanism (issue 40): two
# spinning threads, each variant of bench_sampling_mechanisms (see its header) run interleaved
# with the program alone; per variant, the median over rounds of the rounds lost against the
# alone run of the same round, as microseconds of thread time per signal delivered. Not a test.
#   bash bench/sampling_mechanisms.sh [rounds=9] [period_ns=1000000] [seconds=2]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
rounds=${1:-9}
period=${2:-1000000}
seconds=${3:-2}
bin="$build/bench/bench_sampling_mechanisms"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 0; r < rounds; r++)); do
  for mode in 0 1 2 3 4; do "$bin" "$mode" "$period" "$seconds" >>"$out"; done
done
echo "machine: $(nproc --all) vCPUs, kernel $(uname -r), $(systemd-detect-virt 2>/dev/null || echo unknown)"
echo "period ${period} ns of thread CPU time, 2 threads x ${seconds} s, ${rounds} interleaved rounds"
awk -v seconds="$seconds" '
  BEGIN {
    name[1] = "task clock, random period + refresh (omprof --clock task)"
    name[2] = "task clock, refresh only (fixed period)"
    name[3] = "task clock, continuous (no ioctl)"
    name[4] = "POSIX CPU-time timer, random (omprof --clock cpu)"
  }
  $1 == 0 { base = $2; round++ }
  $1 > 0 && base > 0 && $3 > 0 {
    n[$1]++
    us[$1, n[$1]] = (1 - $2 / base) * 2 * seconds / $3 * 1e6
    sig[$1, n[$1]] = $3
  }
  function median(m, arr,   i, j, t, a, k) {
    k = n[m]
    for (i = 1; i <= k; i++) a[i] = arr[m, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (m = 1; m <= 4; m++)
      printf "%-58s %7.1f us a signal (median), %6d signals a run\n", name[m], median(m, us), median(m, sig)
  }' "$out"
