#!/usr/bin/env bash
# What the timeline costs to read (issue 42), not a test:
#  1. `omprof top` on a job of RANKS MPI ranks (tests/programs/mpi_ranks), while it runs (the
#     ranks busy on this machine's cores) and after it ended: median wall seconds of 3 of
#     `--once`, started in the job's own session and in a session of its own (`setsid`: as from
#     another terminal or an ssh login to the node, where the kernel's autogroup scheduling gives
#     the session its share of the CPUs; `omprof top` starts the viewer in a session of its own
#     either way, launcher/own_session.h, but its own start is in the job's), and the median time between
#     the snapshots of `--every 0.05` in its own session (the symbol cache warm), with its CPU;
#  2. the HTML page of a run with a long timeline (--interval 1 over about 6 s: 3,000 intervals
#     of 2 threads, as many as a 5-minute run at the default 100 ms) opened in headless Chromium
#     (--dump-dom: parsed, scripts run, timeline drawn): median of 3, against a page without it.
#  3. with LULESH=<its binary> and OMPROF_BEFORE=<libomprof.so of a build without the timeline>:
#     LULESH -s 30 -i 100 on 2 threads, five interleaved rounds of alone, before and after, wall
#     seconds: what the interval records cost.
#   bash bench/timeline.sh [ranks]     (default 64)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
ranks=${1:-64}
out=$(mktemp -d)
trap 'pkill -f "$out" 2>/dev/null || true; rm -rf "$out"' EXIT
omprof=$build/bin/omprof
seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
median() { sort -n | sed -n 2p; }
echo "machine: $(nproc) cores, $(uname -r)"

mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$omprof" run -o "$out/job" -- \
  "$build/tests/bin/mpi_ranks_clang" 40 5 1 >/dev/null 2>&1 &
job=$!
while [ "$(ls "$out/job" 2>/dev/null | wc -l)" -lt "$ranks" ]; do sleep 0.5; done
sleep 2
echo "kernel.sched_autogroup_enabled: $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?')"
once() { for i in 1 2 3; do seconds "$@" "$omprof" top --once --format json "$out/job"; done | median; }
# The median gap between snapshots 3 to 8 of `top --every 0.05` in a session of its own.
refresh() {
  timeout 60 setsid -w "$omprof" top --every 0.05 --format json "$out/job" | python3 -c '
import sys, time
t, gaps = time.time(), []
for line in sys.stdin:
    now = time.time(); gaps.append(now - t); t = now
    if len(gaps) == 8: break
gaps = sorted(gaps[2:]); print("%.3f" % gaps[len(gaps) // 2])' || true  # (top: SIGPIPE)
}
same=$(once) own=$(once setsid -w) every=$(refresh)
cpu=$( { /usr/bin/time -f %U+%S setsid -w "$omprof" top --once --format json "$out/job" >/dev/null; } 2>&1 | bc)
wait $job || true
ended=$(once setsid -w)
echo "top --once, $ranks ranks while they run: $same s in the job's session, $own s in its own;"
echo "  --every 0.05 in its own session: $every s between snapshots; one --once used $cpu s of CPU"
echo "top --once after they ended: $ended s"

OMP_NUM_THREADS=2 "$omprof" run --interval 1 -o "$out/long" -- \
  "$build/tests/bin/omp_timeline_clang" 100 20 >/dev/null 2>&1
OMP_NUM_THREADS=2 OMPROF_INTERVAL_MS=60000 "$omprof" run -o "$out/short" -- \
  "$build/tests/bin/omp_timeline_clang" 100 20 >/dev/null 2>&1
"$omprof" view "$out/long" -o "$out/long.html" >/dev/null 2>&1
"$omprof" view "$out/short" -o "$out/short.html" >/dev/null 2>&1
intervals=$("$omprof" timeline --format json "$out/long" | python3 -c 'import json,sys; print(json.load(sys.stdin)["intervals"])')
for page in long short; do
  t=$(for i in 1 2 3; do seconds chromium --headless --no-sandbox --disable-gpu \
    --user-data-dir="$out/chrome" --dump-dom "file://$out/$page.html"; done | median)
  echo "page $page ($(du -k "$out/$page.html" | cut -f1) KB): opened in $t s"
done
echo "(the long page's timeline: $intervals intervals x 2 threads)"

if [ -n "${LULESH:-}" ] && [ -n "${OMPROF_BEFORE:-}" ]; then
  for i in 1 2 3 4 5; do
    a=$(OMP_NUM_THREADS=2 seconds "$LULESH" -s 30 -i 100)
    b=$(OMP_NUM_THREADS=2 OMPROF_LIBRARY=$OMPROF_BEFORE seconds "$omprof" run -o "$out/b$i" -- "$LULESH" -s 30 -i 100)
    n=$(OMP_NUM_THREADS=2 seconds "$omprof" run -o "$out/n$i" -- "$LULESH" -s 30 -i 100)
    echo "LULESH round $i: alone $a before $b after $n"
  done
fi
