/* Ground truth for a region's CPU time. Each step opens "phase" on the main thread; inside it a
 * team of 2 OpenMP threads each opens "compute" and burns (t+1) units of its own thread CPU
 * clock; then the main thread opens "nap" and sleeps one unit (wall time, next to no CPU).
 * Every thread reads its CPU clock around its own "compute" and the main thread around "nap";
 * the program prints the sums: the regions' CPU time, summed over threads, as omprof defines it,
 * and their wall time (longer than the CPU time when the machine is busy).
 * With "kill" as the third argument, the program kills itself (SIGKILL) after printing: what
 * omprof recovers from its journal must have the same regions.
 * Usage: regions_cpu UNIT_MS STEPS [kill] */
#include <omp.h>
#include <omprof/omprof.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin.h"

int main(int argc, char** argv) {
  const double unit = (argc > 1 ? atof(argv[1]) : 10) * 1e-3;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  double compute_cpu = 0, compute_wall = 0, nap_cpu = 0, nap_wall = 0;
  for (int s = 0; s < steps; ++s) {
    omprof_region_begin("phase");
#pragma omp parallel num_threads(2) reduction(+ : compute_cpu, compute_wall)
    {
      const double c0 = thread_cpu_seconds(), w0 = clock_seconds(CLOCK_MONOTONIC);
      omprof_region_begin("compute");
      spin_for(CLOCK_THREAD_CPUTIME_ID, unit * (omp_get_thread_num() + 1));
      omprof_region_end("compute");
      compute_cpu += thread_cpu_seconds() - c0;
      compute_wall += clock_seconds(CLOCK_MONOTONIC) - w0;
    }
    omprof_region_end("phase");
    const double c0 = thread_cpu_seconds(), w0 = clock_seconds(CLOCK_MONOTONIC);
    omprof_region_begin("nap");
    const struct timespec pause = {0, (long)(unit * 1e9)};
    nanosleep(&pause, NULL);
    omprof_region_end("nap");
    nap_cpu += thread_cpu_seconds() - c0;
    nap_wall += clock_seconds(CLOCK_MONOTONIC) - w0;
  }
  printf("compute_cpu %.6f\ncompute_wall %.6f\nnap_cpu %.6f\nnap_wall %.6f\n", compute_cpu,
         compute_wall, nap_cpu, nap_wall);
  fflush(stdout);
  if (argc > 3 && strcmp(argv[3], "kill") == 0) raise(SIGKILL);
  return 0;
}
