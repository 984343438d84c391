// Cost of a region begin/end pair by name and by id, on 1, 2 and 4 threads at once, next to the
// clock reads a region needs. Linked against the no-op API library; run it again with
// LD_PRELOAD=libomprof.so to measure the collector's implementation (bench/run.sh does both).
#include <benchmark/benchmark.h>
#include <time.h>

#include "omprof/omprof.h"

namespace {

void ClockFloor_TwoMonotonic(benchmark::State& state) {
  timespec t;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    benchmark::DoNotOptimize(t);
    clock_gettime(CLOCK_MONOTONIC, &t);
    benchmark::DoNotOptimize(t);
  }
}

// The same with the clock the collector reads where the kernel keeps time with the TSC
// (collector/handler/wall_clock.h): two TSC reads and their conversion to nanoseconds.
void ClockFloor_TwoTsc(benchmark::State& state) {
  const uint64_t t0 = __builtin_ia32_rdtsc();
  for (auto _ : state) {
    uint64_t t = ((__builtin_ia32_rdtsc() - t0) * 3) >> 3;
    benchmark::DoNotOptimize(t);
    t = ((__builtin_ia32_rdtsc() - t0) * 3) >> 3;
    benchmark::DoNotOptimize(t);
  }
}

// What one region pair reads: wall and thread CPU time at begin and at end.
void ClockFloor_RegionClocks(benchmark::State& state) {
  timespec t;
  for (auto _ : state) {
    for (int i = 0; i < 2; ++i) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      benchmark::DoNotOptimize(t);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      benchmark::DoNotOptimize(t);
    }
  }
}

void BeginEnd_ByName(benchmark::State& state) {
  omprof_region_begin("bench_outer");
  for (auto _ : state) {
    omprof_region_begin("solve_phase");
    omprof_region_end("solve_phase");
  }
  omprof_region_end("bench_outer");
}

void BeginEnd_ById(benchmark::State& state) {
  omprof_region_id id = 0;
  omprof_region_lookup("kernel_phase", &id);
  for (auto _ : state) {
    omprof_region_begin_id(id);
    omprof_region_end_id(id);
  }
}

}  // namespace

BENCHMARK(ClockFloor_TwoMonotonic)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(ClockFloor_TwoTsc)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(ClockFloor_RegionClocks)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BeginEnd_ByName)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BeginEnd_ById)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK_MAIN();
