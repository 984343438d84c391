/* Shared by the benchmark programs that time their own loop in chunks and print the median
 * chunk (the steady state: the first chunks of a run on a VM are several times slower). */
#pragma once
#include <stdlib.h>
#include <time.h>

enum { kChunks = 40 };

static inline double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* The median of the kChunks values (sorts them). */
static inline double median_chunk(double* chunk_ns) {
  qsort(chunk_ns, kChunks, sizeof chunk_ns[0], by_value);
  return 0.5 * (chunk_ns[kChunks / 2 - 1] + chunk_ns[kChunks / 2]);
}
