#!/usr/bin/env bash
# Fuzzes everything that reads a profile (reader, model, every report view) for SECONDS
# (default 60), starting from real profiles of the bundled test programs.
#   bash scripts/fuzz.sh [SECONDS]
# Builds tests/fuzz/profile_fuzzer with clang (libFuzzer, ASan, UBSan) in build-fuzz/ (only that
# target), needs the main build for the seed profiles, and first replays every input saved in
# tests/fuzz/regressions/ (each a crash found once: add the crash-* file there when you fix it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
main=${OMPROF_BUILD_DIR:-$here/build}
fuzz=${OMPROF_FUZZ_BUILD_DIR:-$here/build-fuzz}

cmake -S "$here" -B "$fuzz" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DOMPROF_FUZZ=ON -DOMPROF_SANITIZE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$fuzz" --target profile_fuzzer -j"$(nproc)" >/dev/null
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
