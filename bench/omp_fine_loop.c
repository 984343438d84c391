/* Benchmark workload of issue 40: a fine-grained loop, as real codes have them. Each region is a
 * `parallel for` over 4,096 doubles with a sum reduction (a few microseconds of work on 2
 * threads), repeated; the loop is timed in chunks (chunk_timing.h) and the median chunk's time
 * per region printed: the steady state, without the tool's fixed cost per process. The sum is
 * printed too: the same with and without a tool. */
#include <stdio.h>
#include <stdlib.h>

#include "chunk_timing.h"

enum { kN = 4096 };
static double a[kN];

__attribute__((noinline)) static double region(double scale) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < kN; ++i) s += a[i] * scale;
  return s;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  const long per_chunk = n / kChunks > 0 ? n / kChunks : 1;
  for (int i = 0; i < kN; ++i) a[i] = 1.0 / (i + 1);
  double chunk_ns[kChunks], sum = region(1.0); /* the first starts the team: not counted */
  const double t0 = now_seconds();
  for (int c = 0; c < kChunks; ++c) {
    const double c0 = now_seconds();
    for (long i = 0; i < per_chunk; ++i) sum += region(1.0 + 1e-9 * (double)i);
    chunk_ns[c] = (now_seconds() - c0) * 1e9 / (double)per_chunk;
  }
  printf("%ld regions in %.6f s, sum %.6e\n", per_chunk * kChunks, now_seconds() - t0, sum);
  printf("median chunk %.1f ns per region\n", median_chunk(chunk_ns));
  return 0;
}
