/* A library the dlopen test loads, samples in, and unloads again. */
#include <time.h>

static volatile double sink;

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void dl_work(double seconds) {
  double end = cpu_seconds() + seconds, x = 1;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}
