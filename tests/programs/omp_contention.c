/* Contention: two threads repeatedly enter a critical section (critical_loop) and take an
 * omp lock (lock_loop) around long work, so each waits about half of the time. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

static omp_lock_t lock;

TEST_NOINLINE void critical_loop(void) {
#pragma omp parallel num_threads(2)
  for (int i = 0; i < 60; ++i) {
#pragma omp critical
    burn(100);
  }
}

TEST_NOINLINE void lock_loop(void) {
#pragma omp parallel num_threads(2)
  for (int i = 0; i < 60; ++i) {
    omp_set_lock(&lock);
    burn(100);
    omp_unset_lock(&lock);
  }
}

int main(void) {
  omp_init_lock(&lock);
  critical_loop();
  lock_loop();
  omp_destroy_lock(&lock);
  printf("contention done\n");
  return 0;
}
