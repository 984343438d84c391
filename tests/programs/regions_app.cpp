// Explicit regions with designed times: `io` is 200 ms of busy wall time; `solve` runs an
// imbalanced parallel loop (thread t works (t + 1) units, 2 threads: 25% barrier wait) whose
// iterations are `assemble` regions opened on the worker threads. Prints its own measurement
// of the solve phase, and writes the live summary files when given a prefix.
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "omprof/omprof.hpp"
#include "spin.h"

namespace {
double now(clockid_t c) {
  timespec t;
  clock_gettime(c, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
__attribute__((noinline)) void spin(clockid_t c, double seconds) {
  spin_for(c, seconds);
}
}  // namespace

__attribute__((noinline)) void read_input() {
  OMPROF_REGION("io");
  spin(CLOCK_MONOTONIC, 0.200);
}

double assemble_wall[2];      // this step's wall time in "assemble", per iteration (= thread)
double assemble_total[2];     // the same, summed over the steps
double waited = 0, span = 0;  // over the steps: the barrier wait the threads' walls made

__attribute__((noinline)) void solve(int reps, double unit) {
  omprof::Region region{"solve"};
  unsigned lcg = 7;
  for (int r = 0; r < reps; ++r) {
    lcg = lcg * 1103515245u + 12345u;
    const double scale = 0.5 + double((lcg >> 8) % 1000) / 1000.0;  // avoid tick aliasing
#pragma omp parallel for schedule(static) num_threads(2)
    for (int i = 0; i < 2; ++i) {
      const double w0 = now(CLOCK_MONOTONIC);
      {
        OMPROF_REGION("assemble");
        spin(CLOCK_THREAD_CPUTIME_ID, (i + 1) * unit * scale);
      }
      assemble_wall[i] = now(CLOCK_MONOTONIC) - w0;
      assemble_total[i] += assemble_wall[i];
    }
    const double hi = assemble_wall[0] > assemble_wall[1] ? assemble_wall[0] : assemble_wall[1];
    waited += 2 * hi - assemble_wall[0] - assemble_wall[1];
    span += 2 * hi;
  }
}

int main(int argc, char** argv) {
  read_input();
  const double t0 = now(CLOCK_MONOTONIC);
  solve(100, 0.004);
  const double solve_s = now(CLOCK_MONOTONIC) - t0;
  std::printf("solve_seconds %.6f\n", solve_s);
  // The imbalance the threads really had (CPU-designed 1:2, stretched when preempted): over
  // their total times, (max - avg) / max, as the report's imbalance is defined...
  const double hi = std::max(assemble_total[0], assemble_total[1]);
  std::printf("assemble_imbalance %.6f\n",
              hi > 0 ? (hi - (assemble_total[0] + assemble_total[1]) / 2) / hi : 0.0);
  // ...and the barrier wait it made, step by step: preempted unevenly, either thread may be the
  // slower one in a step, which totals hide.
  std::printf("assemble_wait_share %.6f\n", span > 0 ? waited / span : 0.0);
  if (argc > 1) {
    omprof::Region open{"finish"};  // open while the summary is written: marked active
    const std::string prefix = argv[1];
    std::printf("summary %d\n", omprof_write_summary((prefix + ".txt").c_str()));
    std::printf("summary_csv %d\n", omprof_write_summary_csv((prefix + ".csv").c_str()));
  }
  return 0;
}
