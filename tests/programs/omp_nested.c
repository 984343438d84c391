/* Two-level nesting: outer_level's region calls inner_level, which opens its own region. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

TEST_NOINLINE void inner_level(void) {
#pragma omp parallel num_threads(2)
  burn(300);
}

TEST_NOINLINE void outer_level(void) {
#pragma omp parallel num_threads(2)
  inner_level();
}

int main(void) {
  omp_set_max_active_levels(2);
  for (int i = 0; i < 40; ++i) outer_level();
  printf("nested done\n");
  return 0;
}
