/* Designed imbalance: in a parallel for schedule(static) with one iteration per thread,
 * thread t does (t + 1) units of work, repeated many times. With T threads the barrier-wait
 * share of the region is sum_t (T - (t + 1)) / (T * T): 25% for T = 2, 1/3 for T = 3.
 * A unit is a slice of thread CPU time, not an instruction count: on SMT siblings a thread
 * runs faster once its partner waits, which would bend an instruction-count design.
 * The program also measures what its threads really did, step by step (a busy machine stretches
 * the threads' wall times unevenly): each thread's wall time in its work, and the barrier wait
 * that made, which tests compare the profile with. With a fourth argument "explicit", the steps
 * run in one parallel region, each ended by an explicit barrier (the imbalance is then at those
 * barriers, not at the region's end). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

#define MAX_THREADS 64
static double step_wall[MAX_THREADS]; /* this step's wall time in its work, per iteration */

TEST_NOINLINE void imbalanced_step(int nthreads, double unit_seconds) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < nthreads; ++i) {
    double w0 = omp_get_wtime();
    spin_cpu((i + 1) * unit_seconds);
    step_wall[i] = omp_get_wtime() - w0;
  }
}

/* The steps in one region: thread t's wall time in its work at step r goes to walls[r][t]. */
TEST_NOINLINE void imbalanced_steps_one_region(int nthreads, int reps, double unit,
                                               const double* scales, double* walls) {
#pragma omp parallel num_threads(nthreads)
  {
    const int t = omp_get_thread_num();
    for (int r = 0; r < reps; ++r) {
      double w0 = omp_get_wtime();
      spin_cpu((t + 1) * unit * scales[r]);
      walls[r * nthreads + t] = omp_get_wtime() - w0;
#pragma omp barrier
    }
  }
}

int main(int argc, char** argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 2;
  if (nthreads < 1 || nthreads > MAX_THREADS) nthreads = 2;
  double waited = 0, span = 0, work_wall[MAX_THREADS] = {0};
  int reps = argc > 2 ? atoi(argv[2]) : 125;
  double unit = (argc > 3 ? atof(argv[3]) : 4.0) * 1e-3; /* milliseconds */
  /* Vary the step length from one repetition to the next (same for every thread, so the
   * designed shares hold): a fixed step near the kernel tick would alias with CPU-time
   * sampling, which can only fire on ticks. */
  const int one_region = argc > 4 && strcmp(argv[4], "explicit") == 0;
  if (reps < 1) reps = 1;
  double* scales = malloc(sizeof(double) * (size_t)reps);
  double* walls = malloc(sizeof(double) * (size_t)reps * (size_t)nthreads);
  if (!scales || !walls) return 1;
  unsigned lcg = 12345;
  for (int r = 0; r < reps; ++r) {
    lcg = lcg * 1103515245u + 12345u;
    scales[r] = 0.5 + (double)((lcg >> 8) % 1000) / 1000.0;
  }
  if (one_region) imbalanced_steps_one_region(nthreads, reps, unit, scales, walls);
  for (int r = 0; r < reps; ++r) {
    if (one_region) {
      for (int i = 0; i < nthreads; ++i) step_wall[i] = walls[r * nthreads + i];
    } else {
      imbalanced_step(nthreads, unit * scales[r]);
    }
    double hi = 0;
    for (int i = 0; i < nthreads; ++i) hi = step_wall[i] > hi ? step_wall[i] : hi;
    for (int i = 0; i < nthreads; ++i) {
      waited += hi - step_wall[i];
      work_wall[i] += step_wall[i];
    }
    span += nthreads * hi;
  }
  printf("imbalance done: %d threads, %d reps\n", nthreads, reps);
  printf("measured_wait_share %.6f\n", span > 0 ? waited / span : 0.0);
  for (int i = 0; i < nthreads; ++i) printf("measured_work_wall_%d %.6f\n", i, work_wall[i]);
  free(scales);
  free(walls);
  return 0;
}
