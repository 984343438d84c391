/* Shared by the OpenMP test programs: deterministic busy work (instruction count, not time,
 * so a designed imbalance stays the designed imbalance) and a CPU-time spin. */
#pragma once
#include "spin.h"

static volatile double omp_test_sink;

/* Keep the functions the tests look for as their own frames with their own names (gcc would
 * otherwise clone burn into burn.constprop.0). */
#if defined(__clang__)
#define TEST_NOINLINE __attribute__((noinline))
#else
#define TEST_NOINLINE __attribute__((noinline, noclone))
#endif

TEST_NOINLINE static void burn(long units) {
  double x = 1.0;
  for (long i = 0; i < units * 10000; ++i) x = x * 1.0000001 + 1e-9;
  omp_test_sink = x;
}

TEST_NOINLINE static void spin_cpu(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}
