/* A time-step program: each step runs a() for 60% and b() for 40% of a period of thread CPU
 * time. With a fixed sampling interval that divides the period, a sampler sees the same phases
 * every step. Usage: periodic PERIOD_MS STEPS. Prints the CPU time each function really took,
 * measured around the calls. */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

__attribute__((noinline)) void phase_a(double s) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, s);
}
__attribute__((noinline)) void phase_b(double s) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, s);
}

int main(int argc, char** argv) {
  const double period = (argc > 1 ? atof(argv[1]) : 10) * 1e-3;
  const int steps = argc > 2 ? atoi(argv[2]) : 100;
  double in_a = 0, in_b = 0;
  for (int i = 0; i < steps; ++i) {
    double t0 = thread_cpu_seconds();
    phase_a(0.6 * period);
    double t1 = thread_cpu_seconds();
    phase_b(0.4 * period);
    double t2 = thread_cpu_seconds();
    in_a += t1 - t0;
    in_b += t2 - t1;
  }
  printf("a=%.6f b=%.6f\n", in_a, in_b);
  return 0;
}
