/* Contention: two threads repeatedly enter a critical section (critical_loop) and take an
 * omp lock (lock_loop) around long work (burn(300): about one sampling period at 200 Hz, so
 * that sampling error stays small next to the loop). How long each waits depends on the lock's
 * fairness and on the scheduler, so the program measures it: each thread reads the wall clock
 * before asking for the lock and once it holds it, and around its whole share of the region; it
 * prints, per loop, the waits' share of the threads' time in the region. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

static omp_lock_t lock;

static double now(void) {
  return clock_seconds(CLOCK_MONOTONIC);
}

TEST_NOINLINE double critical_loop(void) {
  double waited = 0, span = 0;
#pragma omp parallel num_threads(2) reduction(+ : waited, span)
  {
    const double start = now();
    for (int i = 0; i < 60; ++i) {
      const double asked = now();
#pragma omp critical
      {
        waited += now() - asked;
        burn(300);
      }
    }
#pragma omp barrier
    span += now() - start;
  }
  return waited / span;
}

TEST_NOINLINE double lock_loop(void) {
  double waited = 0, span = 0;
#pragma omp parallel num_threads(2) reduction(+ : waited, span)
  {
    const double start = now();
    for (int i = 0; i < 60; ++i) {
      const double asked = now();
      omp_set_lock(&lock);
      waited += now() - asked;
      burn(300);
      omp_unset_lock(&lock);
    }
#pragma omp barrier
    span += now() - start;
  }
  return waited / span;
}

int main(void) {
  omp_init_lock(&lock);
  const double critical_share = critical_loop();
  const double lock_share = lock_loop();
  omp_destroy_lock(&lock);
  printf("contention done\ncritical_loop %.6f\nlock_loop %.6f\n", critical_share, lock_share);
  return 0;
}
