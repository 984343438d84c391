/* Ground truth for `omprof advise`: each mode has one designed problem, and "fix" as the second
 * argument applies the fix a user would, so that the gain omprof predicts from the first can be
 * compared with the time the second saves. Work is CPU time (spin_cpu), the same in both. The
 * program prints its own wall time from main's start: "elapsed_s E".
 *   imbalance  ROUNDS x a loop of 64 iterations, iteration i costing (i+1) units, schedule(static)
 *              (the last threads get the costly iterations); fix: schedule(dynamic, 1)
 *   serial     ROUNDS x (0.05 s on the main thread alone, then 0.1 s split evenly); fix: the
 *              first part split over the team as well
 *   tiny       ROUNDS x 50,000 parallel regions of about 2 us of work each; fix: one parallel
 *              region around the loop, each thread doing its share of every iteration (the
 *              iterations are independent: no worksharing construct, no barrier)
 *   lock       ROUNDS x a loop of 1,000 iterations, each 20 us of work then 80 us inside one
 *              critical section; fix: the second part into thread-private sums combined once
 *   tasks      ROUNDS x a binary tree of tasks 14 levels deep, each of its 16,384 leaves about
 *              2 us of work, a task for every node; fix: a cut-off, tasks only for the top 6
 *              levels and the subtrees below them run serially
 *   clean      ROUNDS x 0.15 s split evenly: nothing to fix
 * Usage: omp_advice MODE [fix|nofix] [ROUNDS=4] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

static const double kUnit = 60e-6;

TEST_NOINLINE static void uneven_loop(int fix) {
  if (fix) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < 64; ++i) spin_cpu(kUnit * (i + 1));
  } else {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 64; ++i) spin_cpu(kUnit * (i + 1));
  }
}

TEST_NOINLINE static void setup_serially(void) {
  spin_cpu(0.05);
}

TEST_NOINLINE static void setup_in_parallel(void) {
#pragma omp parallel
  spin_cpu(0.05 / omp_get_num_threads());
}

TEST_NOINLINE static void solve(void) {
#pragma omp parallel
  spin_cpu(0.1 / omp_get_num_threads());
}

TEST_NOINLINE static void tiny_work(long iterations) {
  double x = 1.0;
  for (long i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  omp_test_sink = x;
}

TEST_NOINLINE static void tiny_regions(int fix) {
  if (fix) {
#pragma omp parallel
    {
      const int n = omp_get_num_threads();
      for (int i = 0; i < 50000; ++i) tiny_work(1500 / n);  // each thread its share of each
    }
  } else {
    for (int i = 0; i < 50000; ++i) {
#pragma omp parallel
      tiny_work(1500 / omp_get_num_threads());
    }
  }
}

TEST_NOINLINE static void task_tree(int depth, int task_levels) {
  if (depth == 0) {
    tiny_work(1500);
    return;
  }
  if (task_levels > 0) {
#pragma omp task
    task_tree(depth - 1, task_levels - 1);
#pragma omp task
    task_tree(depth - 1, task_levels - 1);
#pragma omp taskwait
  } else {
    task_tree(depth - 1, 0);
    task_tree(depth - 1, 0);
  }
}

TEST_NOINLINE static void fine_tasks(int fix) {
#pragma omp parallel
#pragma omp single
  task_tree(14, fix ? 6 : 14);
}

TEST_NOINLINE static void locked_updates(int fix) {
  double total = 0;
  if (fix) {
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < 1000; ++i) {
      spin_cpu(20e-6);
      spin_cpu(80e-6);
      total += 1;
    }
  } else {
#pragma omp parallel for
    for (int i = 0; i < 1000; ++i) {
      spin_cpu(20e-6);
#pragma omp critical
      {
        spin_cpu(80e-6);
        total += 1;
      }
    }
  }
  if (total != 1000) exit(3);
}

int main(int argc, char** argv) {
  const double start = clock_seconds(CLOCK_MONOTONIC);
  if (argc < 2) return 2;
  const int fix = argc > 2 && strcmp(argv[2], "fix") == 0;
  const int rounds = argc > 3 ? atoi(argv[3]) : 4;
  for (int r = 0; r < rounds; ++r) {
    if (strcmp(argv[1], "imbalance") == 0) {
      uneven_loop(fix);
    } else if (strcmp(argv[1], "serial") == 0) {
      if (fix)
        setup_in_parallel();
      else
        setup_serially();
      solve();
    } else if (strcmp(argv[1], "tiny") == 0) {
      tiny_regions(fix);
    } else if (strcmp(argv[1], "lock") == 0) {
      locked_updates(fix);
    } else if (strcmp(argv[1], "tasks") == 0) {
      fine_tasks(fix);
    } else if (strcmp(argv[1], "clean") == 0) {
      solve();
      solve();
    } else {
      return 2;
    }
  }
  printf("elapsed_s %.6f\n", clock_seconds(CLOCK_MONOTONIC) - start);
  return 0;
}
