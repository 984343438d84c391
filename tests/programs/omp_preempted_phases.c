/* Phases preempted and phases not, on one CPU (the program pins itself to the first CPU it may
 * run on). `alone`: the master computes while its worker sleeps (run with
 * OMP_WAIT_POLICY=passive); `crowded`: both threads compute, sharing the CPU, each off it about
 * half the time. Both take the same CPU time in all (seconds, argv[2], per repetition). The
 * program measures each phase's wall and CPU time, summed over the threads that run it: a
 * profiler that spreads the threads' time off the CPU evenly over their work would give
 * `alone` half of `crowded`'s preemption. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static double alone_wall, alone_cpu, crowded_wall, crowded_cpu;
static volatile int alone_calls, crowded_calls; /* two bodies: gcc folds identical functions */

TEST_NOINLINE static void alone(double seconds) {
  spin_cpu(seconds);
  alone_calls = alone_calls + 1;
}

TEST_NOINLINE static void crowded(double seconds) {
  spin_cpu(seconds);
  crowded_calls = crowded_calls + 2;
}

/* The first CPU the process may run on, alone. */
static void pin_to_one_cpu(void) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) {
      CPU_SET(c, &one);
      break;
    }
  if (sched_setaffinity(0, sizeof one, &one) != 0) perror("sched_setaffinity");
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 10;
  const double seconds = argc > 2 ? atof(argv[2]) : 0.1;
  pin_to_one_cpu(); /* before the runtime starts its threads: they inherit it */
  for (int r = 0; r < reps; ++r) {
    double w = clock_seconds(CLOCK_MONOTONIC), c = thread_cpu_seconds();
    alone(seconds);
    alone_wall += clock_seconds(CLOCK_MONOTONIC) - w;
    alone_cpu += thread_cpu_seconds() - c;
#pragma omp parallel num_threads(2)
    {
      const double w0 = clock_seconds(CLOCK_MONOTONIC), c0 = thread_cpu_seconds();
      crowded(seconds / 2);
      const double dw = clock_seconds(CLOCK_MONOTONIC) - w0, dc = thread_cpu_seconds() - c0;
#pragma omp atomic
      crowded_wall += dw;
#pragma omp atomic
      crowded_cpu += dc;
    }
  }
  printf("alone_wall=%.4f alone_cpu=%.4f crowded_wall=%.4f crowded_cpu=%.4f\n", alone_wall,
         alone_cpu, crowded_wall, crowded_cpu);
  return 0;
}
