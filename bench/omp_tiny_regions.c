/* Benchmark workload: many empty parallel regions (fork/join cost dominates). Times the region
 * loop alone, so that a tool's fixed cost per process (start-up, writing the profile) is not
 * counted per region, in 40 chunks: the first chunks of a run are several times slower than
 * the rest on a VM (the second vCPU waking, libomp's team settling), which made whole-loop
 * times too noisy to compare tools. Prints the whole loop's time and the median chunk's time
 * per region, the steady state bench/tiny_regions.sh compares. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "chunk_timing.h"

static volatile int sink;

__attribute__((noinline)) static void region(void) {
#pragma omp parallel num_threads(2)
  sink = omp_get_thread_num();
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  long per_chunk = n / kChunks > 0 ? n / kChunks : 1;
  double chunk_ns[kChunks];
  region(); /* the first fork starts the team: not part of the per-region cost */
  const double t0 = now_seconds();
  for (int c = 0; c < kChunks; ++c) {
    const double c0 = now_seconds();
    for (long i = 0; i < per_chunk; ++i) region();
    chunk_ns[c] = (now_seconds() - c0) * 1e9 / (double)per_chunk;
  }
  const double total = now_seconds() - t0;
  printf("%ld regions in %.6f s\n", per_chunk * kChunks, total);
  printf("median chunk %.1f ns per region\n", median_chunk(chunk_ns));
  return 0;
}
