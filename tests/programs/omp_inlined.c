/* A kernel that the compiler inlines into the parallel region's body (static, called once: gcc
 * -O2 inlines it into main._omp_fn.0, clang into .omp_outlined.), then serial work in its own
 * function. Prints "kernel_s K serial_s S": the CPU seconds the threads spent in the kernel and
 * the master in the serial part, measured around each. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "omp_common.h"

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double data[1 << 16];

static void kernel_a(int lo, int hi, int rounds) {
  for (int r = 0; r < rounds; ++r)
    for (int i = lo; i < hi; ++i) data[i] = data[i] * 0.999999 + 1.0;
}

TEST_NOINLINE double serial_part(int rounds) {
  double s = 0;
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < (1 << 16); ++i) s += data[i] * 1e-9;
  return s;
}

int main(void) {
  double kernel_s = 0;
#pragma omp parallel num_threads(2) reduction(+ : kernel_s)
  {
    const int half = (1 << 16) / 2, t = omp_get_thread_num();
    const double start = cpu_now();
    kernel_a(t * half, (t + 1) * half, 6000);
    kernel_s += cpu_now() - start;
  }
  const double start = cpu_now();
  const double s = serial_part(3000);
  const double serial_s = cpu_now() - start;
  printf("kernel_s %.4f serial_s %.4f (%d)\n", kernel_s, serial_s, s > 0);
  return 0;
}
