/* Serial and parallel phases whose wall times the program measures itself (issue 37, items 3
 * and 5). setup() runs before the first parallel region (no worker exists: no one idles), then
 * each round runs between() serially while the workers idle, an imbalanced region (thread t
 * spins (t + 1) * 20 ms of CPU time) and a balanced one (30 ms each).
 * Usage: omp_phases THREADS ROUNDS. Prints the measured wall times in seconds, and each
 * construct's first instance apart: a profiler's one-time costs (the first unwind through the
 * runtime's frames) fall there. */
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

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? atoi(argv[2]) : 4;
  double setup_s = 0, between_s = 0, between_cpu_s = 0, imbalanced_s = 0, balanced_s = 0;
  double between_idle_cpu_s = 0; /* between()'s CPU time once the workers exist */
  double imbalanced_first_s = 0, balanced_first_s = 0;
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
    spin_cpu(0.02 * (omp_get_thread_num() + 1));
    const double imbalanced_round_s = wall_seconds() - t0;
    imbalanced_s += imbalanced_round_s;
    if (round == 0) imbalanced_first_s = imbalanced_round_s;
    t0 = wall_seconds();
#pragma omp parallel num_threads(threads)
    spin_cpu(0.03);
    const double balanced_round_s = wall_seconds() - t0;
    balanced_s += balanced_round_s;
    if (round == 0) balanced_first_s = balanced_round_s;
  }
  printf(
      "setup_s %.6f between_s %.6f between_cpu_s %.6f imbalanced_s %.6f balanced_s %.6f "
      "between_idle_cpu_s %.6f imbalanced_first_s %.6f balanced_first_s %.6f\n",
      setup_s, between_s, between_cpu_s, imbalanced_s, balanced_s, between_idle_cpu_s,
      imbalanced_first_s, balanced_first_s);
  return 0;
}
