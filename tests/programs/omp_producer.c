/* One producer (whichever thread enters the single) creates tasks in produce(), doing its own
 * preparation between them, while the other team member executes them; a quarter of the tasks
 * create a child task of their own (refine). Each thread measures the CPU time it spent in
 * consume() and refine() with its thread CPU clock, and prints it with its OpenMP thread number.
 *   omp_producer [tasks]   (default 120) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static double consume_s[2], refine_s[2];
static int producer = -1;

TEST_NOINLINE void refine(int i) {
  const double t0 = thread_cpu_seconds();
  spin_cpu(0.001 + 0.0001 * (i % 3));
  refine_s[omp_get_thread_num() & 1] += thread_cpu_seconds() - t0;
}

TEST_NOINLINE void consume(int i) {
  const double t0 = thread_cpu_seconds();
  spin_cpu(0.002 + 0.0002 * (i % 5));
  consume_s[omp_get_thread_num() & 1] += thread_cpu_seconds() - t0;
  if (i % 4 == 0) {
#pragma omp task firstprivate(i)
    refine(i);
  }
}

TEST_NOINLINE void prepare(int i) {
  spin_cpu(0.0005 + 0.0001 * (i % 2));
}

TEST_NOINLINE void produce(int n) {
  producer = omp_get_thread_num();
  for (int i = 0; i < n; ++i) {
    prepare(i);
#pragma omp task firstprivate(i)
    consume(i);
  }
}

TEST_NOINLINE void driver(int n) {
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    produce(n);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 120;
  driver(n);
  printf("producer=%d consume_s=%.6f,%.6f refine_s=%.6f,%.6f\n", producer, consume_s[0],
         consume_s[1], refine_s[0], refine_s[1]);
  return 0;
}
