/* Benchmark workload: many empty parallel regions (fork/join cost dominates). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) static void region(void) {
#pragma omp parallel num_threads(2)
  sink = omp_get_thread_num();
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  for (long i = 0; i < n; ++i) region();
  printf("%ld regions\n", n);
  return 0;
}
