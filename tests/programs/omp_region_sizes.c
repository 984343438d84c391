/* Parallel regions of a chosen size: `omp_region_sizes N MS` runs N regions of 2 threads, each
 * thread spinning MS milliseconds of its CPU time in each (0: empty regions, where forking and
 * joining the team is all there is). Balanced by design: nobody waits for more work. Prints
 * the loop's wall time, and the team's time off the CPU in it (2 x wall minus the process's CPU
 * time): on a busy machine, waking a worker waits for a CPU too. With a third argument `alone`,
 * each region is followed by one of a team of 1 that spins as long, and the wall time of those
 * is printed (alone_s): the worker of the 2-thread team is left out of them, idle. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "spin.h"

static volatile int sink;

__attribute__((noinline)) static void region(double seconds, int threads) {
#pragma omp parallel num_threads(threads)
  {
    if (seconds > 0) spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
    sink = omp_get_thread_num();
  }
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 200000;
  const double seconds = (argc > 2 ? atof(argv[2]) : 0.0) * 1e-3;
  struct rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  const double t0 = omp_get_wtime();
  const int alone = argc > 3 && strcmp(argv[3], "alone") == 0;
  double alone_s = 0;
  for (long i = 0; i < n; ++i) {
    region(seconds, 2);
    if (!alone) continue;
    const double t = omp_get_wtime();
    region(seconds, 1);
    alone_s += omp_get_wtime() - t;
  }
  const double wall = omp_get_wtime() - t0;
  getrusage(RUSAGE_SELF, &r1);
#define SECONDS(t) ((double)(t).tv_sec + (double)(t).tv_usec * 1e-6)
  const double cpu =
      SECONDS(r1.ru_utime) - SECONDS(r0.ru_utime) + SECONDS(r1.ru_stime) - SECONDS(r0.ru_stime);
  const double off_cpu = 2 * wall - cpu;
  printf("%ld regions of %.3f ms in %.6f s off_cpu=%.6f alone_s=%.6f\n", n, seconds * 1e3, wall,
         off_cpu > 0 ? off_cpu : 0.0, alone_s);
  return 0;
}
