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

TEST_NOINLINE double spin_inline(long n) {
  volatile double x = 1;
  for (long i = 0; i < n; ++i) x = x * 1.0000001;
  return x;
}

/* Both levels in one body: the inner construct is inside the compiler's outlined function of
 * the outer one. */
TEST_NOINLINE void inline_nested(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    spin_inline(2000000);
  }
}

int main(void) {
  omp_set_max_active_levels(2);
  for (int i = 0; i < 40; ++i) outer_level();
  for (int i = 0; i < 20; ++i) inline_nested();
  printf("nested done\n");
  return 0;
}
