/* A parallel region whose body has two hot lines of its own (no calls), the first doing about
 * twice the second's work. The program measures each line's thread CPU time on every thread
 * and prints the sums with the lines' numbers, so that `report --lines` can be checked against
 * what the body did: "line_a=L seconds_a=S line_b=L seconds_b=S". */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

int main(void) {
  double seconds_a = 0, seconds_b = 0;
  int line_a = 0, line_b = 0;
  for (int step = 0; step < 20; ++step) {
#pragma omp parallel num_threads(2) reduction(+ : seconds_a, seconds_b)
    {
      double x = 1.0, y = 1.0;  // serial dependency chains: neither folds nor vectorizes
      const double t0 = thread_cpu();
      // Each loop and its __LINE__ on one line.
      // clang-format off
      for (long i = 0; i < 8000000; ++i) { x = x * 1.0000001 + 1e-9; } line_a = __LINE__;
      const double t1 = thread_cpu();
      for (long i = 0; i < 4000000; ++i) { y = y * 1.0000001 + 1e-9; } line_b = __LINE__;
      // clang-format on
      const double t2 = thread_cpu();
      if (x + y < 0) sink = x; /* never: keeps the loops without a data race */
      seconds_a += t1 - t0;
      seconds_b += t2 - t1;
    }
  }
  printf("line_a=%d seconds_a=%.6f line_b=%d seconds_b=%.6f\n", line_a, seconds_a, line_b,
         seconds_b);
  return 0;
}
