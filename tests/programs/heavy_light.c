/* Single-threaded ground truth: about 70% of the CPU time in heavy(), 30% in light(),
 * calibrated by thread CPU time and interleaved in rounds so no phase dominates. */
#include <stdio.h>
#include <time.h>

#include "spin.h"

__attribute__((noinline)) void heavy(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}

__attribute__((noinline)) void light(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}

int main(void) {
  for (int round = 0; round < 15; ++round) {
    heavy(0.070);
    light(0.030);
  }
  printf("heavy_light done\n");
  return 0;
}
