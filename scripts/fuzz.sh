#!/usr/bin/env bash
# Fuzzes everything that reads a file omprof may be given (profiles: reader, model, every report
# view and the views over ranks; journals: the recovery; MPI job summaries) for SECONDS
# (default 60), starting from real files made by the bundled test programs.
#   bash scripts/fuzz.sh [SECONDS]
#   bash scripts/fuzz.sh build     (only builds, as scripts/test.sh does first)
# Builds, with clang, libFuzzer, ASan and UBSan, in build-fuzz/: tests/fuzz/profile_fuzzer, and
# the omprof command (launcher and viewer, on the same instrumented objects), which
# scripts/test.sh's AddressSanitizer phase runs. Needs the main build for the seed profiles and
# the collector, and first replays every input saved in tests/fuzz/regressions/ (each a crash
# found once: add the crash-* file there when you fix it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
main=${OMPROF_BUILD_DIR:-$here/build}
fuzz=${OMPROF_FUZZ_BUILD_DIR:-$here/build-fuzz}
main=$(realpath "$main")

# -O1 and line tables only (no full debug information): the usual fuzzing build. It saved
# little here (the whole test took 293 s instead of 300 s on the 2-vCPU VM): the sanitizers'
# and the coverage instrumentation's compile time dominates. A unity build (several sources
# compiled as one) saved a third of the AddressSanitizer build's time (scripts/test.sh).
# The omprof command runs the main build's collector (OMPROF_PROGRAMS_FROM): the collector is
# preloaded into programs that carry no sanitizer runtime.
cmake -S "$here" -B "$fuzz" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DOMPROF_FUZZ=ON -DOMPROF_SANITIZE=OFF -DOMPROF_SANITIZE_TOOLS=ON \
  -DOMPROF_PROGRAMS_FROM="$main" -DCMAKE_BUILD_TYPE=None -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DCMAKE_C_FLAGS="-O1 -gline-tables-only" >/dev/null
cmake --build "$fuzz" --target profile_fuzzer omprof_cli -j"$(nproc)" >/dev/null
[ "$seconds" = build ] && exit 0
fuzzer=$fuzz/bin/profile_fuzzer

# Seeds: profiles of OpenMP, region-annotated and plain programs, made now by this build.
seeds=$fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
bin=$main/tests/bin
for cmd in "heavy_light" "omp_work_wait_clang 3 40" "omp_nested_clang" "omp_tasks_clang" \
  "omp_contention_gcc" "regions_guard" "threads4"; do
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=2 "$main/bin/omprof" run -o "$seeds" -- $bin/$cmd >/dev/null 2>&1 || true
done
ls "$seeds"/*.omprof >/dev/null  # at least one seed, or the build is broken
# A journal left by a killed process (small tables, so that its compact form fits -max_len), and
# an MPI job's profiles and summary, where an MPI launcher is installed.
journals=$fuzz/journals
rm -rf "$journals" && mkdir -p "$journals"
(OMPROF_MAX_CONTEXTS=16 OMPROF_MAX_DEPTH=16 OMP_NUM_THREADS=2 LD_PRELOAD="$main/lib/libomprof.so" \
  OMPROF_OUTPUT="$journals" "$bin/omp_endings_clang" kill 0.2 || true) >/dev/null 2>&1
for j in "$journals"/*.ompjournal; do
  [ -e "$j" ] && python3 "$here/scripts/compact_journal.py" "$j" "$seeds/$(basename "$j")"
done
if command -v mpirun >/dev/null && [ -x "$bin/mpi_ranks_gcc" ]; then
  timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2 "$main/bin/omprof" run -o "$seeds" \
    -- "$bin/mpi_ranks_gcc" 2 2 1 >/dev/null 2>&1 || true
fi

regressions=$here/tests/fuzz/regressions
if compgen -G "$regressions/*" >/dev/null; then
  "$fuzzer" -runs=0 "$regressions"/* 2>&1 | tail -n 2
fi

corpus=$fuzz/corpus
mkdir -p "$corpus"
log=$fuzz/fuzz.log
# A file may not make omprof allocate far beyond its size: 256 MB for inputs up to 256 KB.
status=0
"$fuzzer" -max_total_time="$seconds" -max_len=262144 -malloc_limit_mb=256 -rss_limit_mb=2048 \
  -timeout=20 -print_final_stats=1 -artifact_prefix="$fuzz/" "$corpus" "$seeds" >"$log" 2>&1 ||
  status=$?
grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)|runtime error" \
  "$log" || true
if [ "$status" -ne 0 ]; then
  echo "fuzz: the fuzzer found a failure (exit $status); input saved in $fuzz/crash-*" >&2
  exit 1
fi
echo "fuzz: no failure in $seconds s"
