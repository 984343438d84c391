/* Ground truth for `omprof scaling`: one designed loss per mode, run at several thread counts
 * (OMP_NUM_THREADS) with the same total work (strong scaling). The work is CPU time (spin_cpu),
 * so it stays what it was designed to be on a busy machine. The main thread measures the wall
 * time of its parallel phases, every thread sums the CPU time it spun, and the team's wait at
 * each region's end (from each thread's end of work to the region's end) is summed:
 *   threads T parallel_wall_s P parallel_work_s W work_s A join_wait_s J
 * Modes:
 *   amdahl     ROUNDS x (serial 0.06 s on the main thread, then 0.24 s of work split evenly);
 *   imbalance  ROUNDS x 0.2 s of work split in proportion to 1, 2, ..., T (thread t's share
 *              (t+1) / sum): the imbalance grows with the team;
 *   redundant  ROUNDS x (0.15 s split evenly, plus 0.05 s every thread does again);
 *   weak       ROUNDS x 0.1 s of work per thread (the problem grows with the team);
 *   fine       ROUNDS x 10,000 parallel regions of about 10 us of work split evenly.
 * Usage: omp_scaling MODE [ROUNDS=4] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

static double parallel_wall_s, parallel_work_s, serial_work_s, join_wait_s;

TEST_NOINLINE static void serial_code(double seconds) {
  spin_cpu(seconds);
  serial_work_s += seconds;
}

/* Thread t of the team spins `share(t)` seconds; the team's CPU time is summed. */
TEST_NOINLINE static void team_work(double total, int mode) {
  const double start = clock_seconds(CLOCK_MONOTONIC);
  double spun = 0, ends = 0;
  int team = 1;
#pragma omp parallel reduction(+ : spun, ends)
  {
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    double s = total / n;
    if (mode == 1) s = total * (t + 1) / (n * (n + 1) / 2.0);
    if (mode == 2) s += 0.05;
    spin_cpu(s);
    spun += s;
    ends += clock_seconds(CLOCK_MONOTONIC);
    if (t == 0) team = n;
  }
  const double end = clock_seconds(CLOCK_MONOTONIC);
  join_wait_s += team * end - ends;
  parallel_wall_s += end - start;
  parallel_work_s += spun;
}

/* About 10 us of arithmetic split over the team. */
TEST_NOINLINE static void tiny_work(long iterations) {
  double x = 1.0;
  for (long i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  omp_test_sink = x;
}

TEST_NOINLINE static void fine_regions(int count) {
  const double start = clock_seconds(CLOCK_MONOTONIC);
  for (int i = 0; i < count; ++i) {
#pragma omp parallel
    tiny_work(4000 / omp_get_num_threads());
  }
  parallel_wall_s += clock_seconds(CLOCK_MONOTONIC) - start;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int rounds = argc > 2 ? atoi(argv[2]) : 4;
  for (int r = 0; r < rounds; ++r) {
    if (strcmp(argv[1], "amdahl") == 0) {
      serial_code(0.06);
      team_work(0.24, 0);
    } else if (strcmp(argv[1], "imbalance") == 0) {
      team_work(0.2, 1);
    } else if (strcmp(argv[1], "redundant") == 0) {
      team_work(0.15, 2);
    } else if (strcmp(argv[1], "weak") == 0) {
      team_work(0.1 * omp_get_max_threads(), 0);
    } else if (strcmp(argv[1], "fine") == 0) {
      fine_regions(10000);
    } else {
      return 2;
    }
  }
  printf("threads %d parallel_wall_s %.6f parallel_work_s %.6f work_s %.6f join_wait_s %.6f\n",
         omp_get_max_threads(), parallel_wall_s, parallel_work_s, parallel_work_s + serial_work_s,
         join_wait_s);
  return 0;
}
