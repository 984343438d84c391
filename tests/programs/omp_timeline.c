/* Ground truth for the timeline: a balanced phase, then an imbalanced one, with the moment of
 * the switch measured by the program. In each round of the first phase both threads spin UNIT
 * of CPU time; in the second, thread 1 spins twice as long as thread 0, which then waits half
 * of each round at the region's end (the team's efficiency 0.75). With "serial" as the third
 * argument, a third phase follows: each round the main thread spins 2 UNIT alone (the worker
 * idles), then a region of UNIT each.
 * Prints "switch_s S serial_s T end_s E alone_s A balanced_wait_s W": wall seconds from main's
 * start to the second phase, the third (or the end) and the end, the wall seconds the main thread
 * ran alone in the third phase (the worker idles that long, whatever the machine's load), and the
 * main thread's longest wait at a balanced region's end in the first phase.
 * Usage: omp_timeline ROUNDS_PER_PHASE [UNIT_MS=20 [serial]] (two threads) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

/* Returns how long the main thread waited at the region's end: on a busy machine the
 * "balanced" threads' equal CPU time can take unequal wall time. */
TEST_NOINLINE static double balanced(double unit) {
  double main_done = 0;
#pragma omp parallel num_threads(2)
  {
    spin_cpu(unit);
    if (omp_get_thread_num() == 0) main_done = clock_seconds(CLOCK_MONOTONIC);
  }
  return clock_seconds(CLOCK_MONOTONIC) - main_done;
}

TEST_NOINLINE static void imbalanced(double unit) {
#pragma omp parallel num_threads(2)
  spin_cpu(unit * (omp_get_thread_num() + 1));
}

TEST_NOINLINE static void alone(double unit) {
  spin_cpu(2 * unit);
}

int main(int argc, char** argv) {
  const double start = clock_seconds(CLOCK_MONOTONIC);
  const int rounds = argc > 1 ? atoi(argv[1]) : 25;
  const double unit = (argc > 2 ? atof(argv[2]) : 20) * 1e-3;
  const int serial = argc > 3 && strcmp(argv[3], "serial") == 0;
  double balanced_wait_s = 0;
  for (int r = 0; r < rounds; ++r) {
    const double waited = balanced(unit);
    if (waited > balanced_wait_s) balanced_wait_s = waited;
  }
  const double switch_s = clock_seconds(CLOCK_MONOTONIC) - start;
  for (int r = 0; r < rounds; ++r) imbalanced(unit);
  const double serial_s = clock_seconds(CLOCK_MONOTONIC) - start;
  double alone_s = 0;
  for (int r = 0; serial && r < rounds; ++r) {
    const double from = clock_seconds(CLOCK_MONOTONIC);
    alone(unit);
    alone_s += clock_seconds(CLOCK_MONOTONIC) - from;
    balanced(unit);
  }
  printf("switch_s %.6f serial_s %.6f end_s %.6f alone_s %.6f balanced_wait_s %.6f\n", switch_s,
         serial_s, clock_seconds(CLOCK_MONOTONIC) - start, alone_s, balanced_wait_s);
  return 0;
}
