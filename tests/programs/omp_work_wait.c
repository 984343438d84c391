/* Designed work/wait with two threads, repeated in steps of PERIOD_MS of CPU time:
 *   serial: the master works 0.4 P while the worker has nothing to do (idle);
 *   region: thread 0 works 0.2 P, thread 1 works 0.6 P, then both meet at the join barrier.
 * Work is 1.2 P of the 2 x 1.0 P thread time: 60%, wait 40%, whatever the wait policy.
 * Usage: omp_work_wait PERIOD_MS STEPS. Prints the work share measured in-program: wall time
 * each thread spent in its work phases over the threads' wall time in the steps. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static double wall_seconds(void) {
  return clock_seconds(CLOCK_MONOTONIC);
}

TEST_NOINLINE static void serial_work(double s) {
  spin_cpu(s);
}
TEST_NOINLINE static void region_work(double s) {
  spin_cpu(s);
}

int main(int argc, char** argv) {
  const double period = (argc > 1 ? atof(argv[1]) : 10) * 1e-3;
  const int steps = argc > 2 ? atoi(argv[2]) : 100;
  double work[2] = {0, 0};
#pragma omp parallel num_threads(2)
  { (void)0; } /* start the team before the clock starts */
  const double t0 = wall_seconds();
  for (int i = 0; i < steps; ++i) {
    double s0 = wall_seconds();
    serial_work(0.4 * period);
    work[0] += wall_seconds() - s0;
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num();
      double r0 = wall_seconds();
      region_work(t == 0 ? 0.2 * period : 0.6 * period);
      work[t] += wall_seconds() - r0;
    }
  }
  const double elapsed = wall_seconds() - t0;
  printf("work_share=%.4f elapsed=%.3f\n", (work[0] + work[1]) / (2 * elapsed), elapsed);
  return 0;
}
