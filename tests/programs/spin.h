/* CPU-time spins for the ground-truth test programs. The thread CPU clock is a system call on
 * some kernels (about 650 ns on a 6.18 VM), so reading it in the hot loop would put a large,
 * machine-dependent share of the time in __vdso_clock_gettime. spin_for() reads its clock once
 * per chunk of arithmetic sized to take about 50 us, which keeps the clock's share near 1% on
 * any kernel while still ending within one chunk of the designed time. */
#pragma once
#include <time.h>

static volatile double spin_sink;

static inline double clock_seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline double thread_cpu_seconds(void) {
  return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* Busy arithmetic for `seconds` of `clock` time (CPU time, or wall time for CLOCK_MONOTONIC). */
static inline __attribute__((always_inline)) void spin_for(clockid_t clock, double seconds) {
  const double chunk_target = 50e-6;
  double now = clock_seconds(clock), end = now + seconds, x = spin_sink + 1.0;
  long chunk = 2000;
  while (now < end) {
    for (long i = 0; i < chunk; ++i) x = x * 1.0000001 + 1e-9;
    const double after = clock_seconds(clock), took = after - now;
    now = after;
    /* Aim the next chunk at ~50 us, and never far past the end. */
    double want = end - now < chunk_target ? end - now : chunk_target;
    if (took > 0) {
      double next = (double)chunk * want / took;
      chunk = next < 100 ? 100 : next > 1e8 ? 100000000 : (long)next;
    }
  }
  spin_sink = x;
}
