/* 40% serial then 60% parallel (wall time), three rounds. The workers exist from the first
 * region on, so during serial_part they are idle in the runtime, not at a barrier. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

TEST_NOINLINE void serial_part(void) {
  spin_cpu(0.16);
}

TEST_NOINLINE void parallel_part(void) {
#pragma omp parallel num_threads(2)
  spin_cpu(0.24);
}

int main(void) {
#pragma omp parallel num_threads(2)
  burn(1);
  for (int round = 0; round < 3; ++round) {
    serial_part();
    parallel_part();
  }
  printf("serial fraction done\n");
  return 0;
}
