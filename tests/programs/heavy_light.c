/* Single-threaded ground truth: about 70% of the CPU time in heavy(), 30% in light(),
 * calibrated by thread CPU time and interleaved in rounds so no phase dominates. */
#include <stdio.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

__attribute__((noinline)) void heavy(double seconds) {
  double end = cpu_seconds() + seconds, x = 1.0;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) void light(double seconds) {
  double end = cpu_seconds() + seconds, x = 1.0;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i) x = x * 0.9999999 + 1e-9;
  sink = x;
}

int main(void) {
  for (int round = 0; round < 15; ++round) {
    heavy(0.070);
    light(0.030);
  }
  printf("heavy_light done\n");
  return 0;
}
