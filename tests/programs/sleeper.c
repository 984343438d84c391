/* Sleeps N times (default 5000) for 20 us: at least N voluntary context switches in a few
 * milliseconds of CPU time, the pattern that makes the task clock expensive. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 5000;
  const struct timespec nap = {0, 20000};
  for (long i = 0; i < n; ++i) nanosleep(&nap, NULL);
  printf("slept %ld times\n", n);
  return 0;
}
