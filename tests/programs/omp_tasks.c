/* Explicit tasks created in spawn_tasks (one producer, inside single) and executed by the
 * team at the barrier and at a taskwait. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

TEST_NOINLINE void task_body(int i) {
  burn(50 + (i % 3));
}

TEST_NOINLINE void spawn_tasks(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
      for (int i = 0; i < 200; ++i) {
#pragma omp task firstprivate(i)
        task_body(i);
      }
#pragma omp taskwait
      for (int i = 0; i < 200; ++i) {
#pragma omp task firstprivate(i)
        task_body(i);
      }
    }
  }
}

int main(void) {
  for (int r = 0; r < 3; ++r) spawn_tasks();
  printf("tasks done\n");
  return 0;
}
