/* Ground truth for where on the timeline a wait lies that its thread interrupts to run tasks.
 * ROUNDS regions of two threads: in each, thread 1 goes straight to the region's end barrier
 * while thread 0 spins WAIT_MS of CPU time, then creates 8 tasks of TASK_MS of CPU time each
 * and arrives there too. Thread 1 waits about WAIT_MS, then runs tasks at the barrier (work)
 * beside thread 0 until none is left.
 * Prints per round, in wall seconds from main's start: "round R wait_from A tasks_from B
 * tasks_to C ran N": when thread 1 arrived at the barrier, when the first task it ran began and
 * the last ended, and how many it ran.
 * Usage: omp_late_tasks [ROUNDS=2 [WAIT_MS=500 [TASK_MS=100]]] (two threads) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static double g_start;

static double now_s(void) {
  return clock_seconds(CLOCK_MONOTONIC) - g_start;
}

TEST_NOINLINE static void task_work(double seconds, double* from, double* to, int* ran) {
  if (omp_get_thread_num() != 1) {
    spin_cpu(seconds);
    return;
  }
  const double begun = now_s();
  spin_cpu(seconds);
  if (*ran == 0) *from = begun;
  *to = now_s();
  ++*ran;
}

TEST_NOINLINE static void late_tasks(int round, double wait, double task) {
  double arrived = 0, from = 0, to = 0;
  int ran = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      spin_cpu(wait);
      for (int k = 0; k < 8; ++k) {
#pragma omp task
        task_work(task, &from, &to, &ran);
      }
    } else {
      arrived = now_s();
    }
  }
  printf("round %d wait_from %.6f tasks_from %.6f tasks_to %.6f ran %d\n", round, arrived, from, to,
         ran);
}

int main(int argc, char** argv) {
  g_start = clock_seconds(CLOCK_MONOTONIC);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2;
  const double wait = (argc > 2 ? atof(argv[2]) : 500) * 1e-3;
  const double task = (argc > 3 ? atof(argv[3]) : 100) * 1e-3;
  for (int r = 0; r < rounds; ++r) late_tasks(r, wait, task);
  return 0;
}
