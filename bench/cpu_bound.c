/* Benchmark workload: 2 threads (or argv[3]), a fixed amount of floating-point work each
 * (several seconds), with the hot loop argv[2] (default 30) calls deep so that every sample
 * unwinds that many frames. argv[1]: iterations per thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;
static long iterations = 2400000000L;
static int depth = 30;

__attribute__((noinline)) static double kernel(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

__attribute__((noinline)) static double descend(int d, long n) {
  if (d <= 1) return kernel(n);
  double r = descend(d - 1, n);
  return r + 1e-12; /* not a tail call: keep the frames */
}

static void* worker(void* arg) {
  (void)arg;
  sink = descend(depth, iterations);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) iterations = atol(argv[1]);
  if (argc > 2) depth = atoi(argv[2]);
  int nthreads = argc > 3 ? atoi(argv[3]) : 2;
  if (nthreads < 1 || nthreads > 2) nthreads = 2;
  pthread_t t[2];
  for (int i = 0; i < nthreads; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < nthreads; ++i) pthread_join(t[i], NULL);
  printf("%f\n", sink);
  return 0;
}
