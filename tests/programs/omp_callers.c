/* One parallel construct reached from two callers with identical frames, called alternately:
 * the fork happens at the same stack depth with the same construct, so only the return
 * addresses tell the paths apart. caller_a's calls work twice as long as caller_b's. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

TEST_NOINLINE void parallel_work(double seconds) {
#pragma omp parallel num_threads(2)
  spin_cpu(seconds);
}

TEST_NOINLINE void caller_a(double s) {
  parallel_work(2 * s);
  omp_test_sink += 1;
}

TEST_NOINLINE void caller_b(double s) {
  parallel_work(s);
  omp_test_sink += 1;
}

int main(void) {
  for (int i = 0; i < 100; ++i) {
    caller_a(0.002 + 0.0001 * (i % 7));
    caller_b(0.002 + 0.0001 * (i % 7));
  }
  printf("callers done\n");
  return 0;
}
