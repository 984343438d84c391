/* Benchmark workload: one parallel region of 2 threads meeting at many explicit barriers (the
 * barriers' own cost dominates). Times the loop on the master in 40 chunks and prints the
 * median chunk's time per barrier, as omp_tiny_regions.c does per region (bench/gomp_sync.sh). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "chunk_timing.h"

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
      c0 = now_seconds();
      for (long i = 0; i < per_chunk; ++i) {
#pragma omp barrier
      }
#pragma omp master
      chunk_ns[c] = (now_seconds() - c0) * 1e9 / (double)per_chunk;
    }
  }
  printf("median chunk %.1f ns per barrier\n", median_chunk(chunk_ns));
  return 0;
}
