/* Benchmark workload: many empty parallel regions (fork/join cost dominates). Prints the
 * wall time of the region loop alone, so that a tool's fixed cost per process (start-up,
 * writing the profile) is not counted as cost per region. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int sink;

__attribute__((noinline)) static void region(void) {
#pragma omp parallel num_threads(2)
  sink = omp_get_thread_num();
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  region(); /* the first fork starts the team: not part of the per-region cost */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i) region();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("%ld regions in %.6f s\n", n, s);
  return 0;
}
