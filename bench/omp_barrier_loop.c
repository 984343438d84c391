/* Benchmark workload: one parallel region of 2 threads meeting at many explicit barriers (the
 * barriers' own cost dominates). Times the loop on the master in 40 chunks and prints the
 * median chunk's time per barrier, as omp_tiny_regions.c does per region (bench/gomp_sync.sh). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kChunks = 40 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 400000;
  long per_chunk = n / kChunks > 0 ? n / kChunks : 1;
  double chunk_ns[kChunks];
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
    for (int c = 0; c < kChunks; ++c) {
      double c0 = 0;
#pragma omp master
      c0 = now();
      for (long i = 0; i < per_chunk; ++i) {
#pragma omp barrier
      }
#pragma omp master
      chunk_ns[c] = (now() - c0) * 1e9 / (double)per_chunk;
    }
  }
  qsort(chunk_ns, kChunks, sizeof chunk_ns[0], by_value);
  printf("median chunk %.1f ns per barrier\n",
         0.5 * (chunk_ns[kChunks / 2 - 1] + chunk_ns[kChunks / 2]));
  return 0;
}
