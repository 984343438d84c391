/* A stream of small deferred tasks: one producer (in single) creates N tasks of about 1 us of
 * arithmetic each, which the team runs. Prints the stream's wall time (tasks_s). For
 * bench/task_paths.sh: what recording each deferred task's creation path costs.
 *   bench_omp_task_stream [tasks]   (default 200000) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void small_work(int i) {
  double x = i;
  for (int k = 0; k < 300; ++k) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) static void produce(int n) {
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i)
    small_work(i);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 200000;
  const double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  produce(n);
  printf("tasks=%d tasks_s=%.6f\n", n, omp_get_wtime() - t0);
  return 0;
}
