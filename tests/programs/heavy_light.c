/* Single-threaded ground truth: about 70% of the CPU time in heavy(), 30% in light(),
 * calibrated by thread CPU time and interleaved in rounds so no phase dominates.
 * `heavy_light HEAVY_MS LIGHT_MS` changes the milliseconds per round (70 and 30). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

__attribute__((noinline)) void heavy(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}

__attribute__((noinline)) void light(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}

int main(int argc, char** argv) {
  const double heavy_s = argc > 2 ? atof(argv[1]) / 1000 : 0.070;
  const double light_s = argc > 2 ? atof(argv[2]) / 1000 : 0.030;
  for (int round = 0; round < 15; ++round) {
    heavy(heavy_s);
    light(light_s);
  }
  printf("heavy_light done\n");
  return 0;
}
