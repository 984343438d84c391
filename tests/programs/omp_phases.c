/* Serial and parallel phases whose wall times the program measures itself (issue 37, items 3
 * and 5). setup() runs before the first parallel region (no worker exists: no one idles), then
 * each round runs between() serially while the workers idle, an imbalanced region (thread t
 * spins (t + 1) * 20 ms of CPU time) and a balanced one (30 ms each).
 * Usage: omp_phases THREADS ROUNDS. Prints the measured wall times in seconds, and each
 * construct's first instance apart: a profiler's one-time costs (the first unwind through the
 * runtime's frames) fall there. And each construct's inner time: per instance, from the first
 * member's start of the body to the last member's end of it, which a fork-to-join window
 * holds whatever the machine does around it (on a busy one the runtime's fork and join, outside
 * a tool's callbacks too, took milliseconds). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

TEST_NOINLINE void setup(void) {
  spin_cpu(0.10);
}

TEST_NOINLINE void between(void) {
  spin_cpu(0.08);
}

static double wall_seconds(void) {
  return clock_seconds(CLOCK_MONOTONIC);
}

/* The bodies' own reads of the same clock, apart from clock_seconds: a sample there must not put
 * the timer read after a region on its call path (the profile's test checks that). */
#define MAX_MEMBERS 64
static double g_body_start[MAX_MEMBERS], g_body_end[MAX_MEMBERS];
static void body_clock(double* slot) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  *slot = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The first start to the last end of the bodies of the instance that just ran on `threads`. */
static double inner_seconds(int threads) {
  double first = g_body_start[0], last = g_body_end[0];
  for (int t = 1; t < threads && t < MAX_MEMBERS; ++t) {
    if (g_body_start[t] < first) first = g_body_start[t];
    if (g_body_end[t] > last) last = g_body_end[t];
  }
  return last - first;
}

TEST_NOINLINE void phase_body(double spin_s) {
  const int t = omp_get_thread_num();
  if (t < MAX_MEMBERS) body_clock(&g_body_start[t]);
  spin_cpu(spin_s);
  if (t < MAX_MEMBERS) body_clock(&g_body_end[t]);
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? atoi(argv[2]) : 4;
  double setup_s = 0, between_s = 0, between_cpu_s = 0, imbalanced_s = 0, balanced_s = 0;
  double between_idle_cpu_s = 0; /* between()'s CPU time once the workers exist */
  double imbalanced_first_s = 0, balanced_first_s = 0;
  double imbalanced_inner_s = 0, balanced_inner_s = 0;
  double t0 = wall_seconds();
  setup();
  setup_s = wall_seconds() - t0;
  for (int round = 0; round < rounds; ++round) {
    t0 = wall_seconds();
    const double c0 = thread_cpu_seconds();
    between();
    between_cpu_s += thread_cpu_seconds() - c0;
    if (round > 0) between_idle_cpu_s += thread_cpu_seconds() - c0;
    between_s += wall_seconds() - t0;
    t0 = wall_seconds();
#pragma omp parallel num_threads(threads)
    phase_body(0.02 * (omp_get_thread_num() + 1));
    const double imbalanced_round_s = wall_seconds() - t0;
    imbalanced_s += imbalanced_round_s;
    imbalanced_inner_s += inner_seconds(threads);
    if (round == 0) imbalanced_first_s = imbalanced_round_s;
    t0 = wall_seconds();
#pragma omp parallel num_threads(threads)
    phase_body(0.03);
    const double balanced_round_s = wall_seconds() - t0;
    balanced_s += balanced_round_s;
    balanced_inner_s += inner_seconds(threads);
    if (round == 0) balanced_first_s = balanced_round_s;
  }
  printf(
      "setup_s %.6f between_s %.6f between_cpu_s %.6f imbalanced_s %.6f balanced_s %.6f "
      "between_idle_cpu_s %.6f imbalanced_first_s %.6f balanced_first_s %.6f "
      "imbalanced_inner_s %.6f balanced_inner_s %.6f\n",
      setup_s, between_s, between_cpu_s, imbalanced_s, balanced_s, between_idle_cpu_s,
      imbalanced_first_s, balanced_first_s, imbalanced_inner_s, balanced_inner_s);
  return 0;
}
