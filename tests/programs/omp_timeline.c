/* Ground truth for the timeline: a balanced phase, then an imbalanced one, with the moment of
 * the switch measured by the program. In each round of the first phase both threads spin UNIT
 * of CPU time; in the second, thread 1 spins twice as long as thread 0, which then waits half
 * of each round at the region's end (the team's efficiency 0.75).
 * Prints "switch_s S end_s E": wall seconds from main's start to the second phase and the end.
 * Usage: omp_timeline ROUNDS_PER_PHASE [UNIT_MS=20] (two threads) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

TEST_NOINLINE static void balanced(double unit) {
#pragma omp parallel num_threads(2)
  spin_cpu(unit);
}

TEST_NOINLINE static void imbalanced(double unit) {
#pragma omp parallel num_threads(2)
  spin_cpu(unit * (omp_get_thread_num() + 1));
}

int main(int argc, char** argv) {
  const double start = clock_seconds(CLOCK_MONOTONIC);
  const int rounds = argc > 1 ? atoi(argv[1]) : 25;
  const double unit = (argc > 2 ? atof(argv[2]) : 20) * 1e-3;
  for (int r = 0; r < rounds; ++r) balanced(unit);
  const double switch_s = clock_seconds(CLOCK_MONOTONIC) - start;
  for (int r = 0; r < rounds; ++r) imbalanced(unit);
  printf("switch_s %.6f end_s %.6f\n", switch_s, clock_seconds(CLOCK_MONOTONIC) - start);
  return 0;
}
