/* Creates argv[1] rounds of argv[2] short threads, each spinning argv[3] ms of CPU time in
 * short_work, and prints the threads' CPU time in short_work, measured by each thread with its
 * own clock. Most threads live for less than one sampling period. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static double g_ms;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static double g_cpu_in_work;

__attribute__((noinline)) static void short_work(void) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, g_ms * 1e-3);
}

static void* thread_main(void* arg) {
  (void)arg;
  const double t0 = thread_cpu_seconds();
  short_work();
  const double took = thread_cpu_seconds() - t0;
  pthread_mutex_lock(&g_lock);
  g_cpu_in_work += took;
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const int rounds = atoi(argv[1]), per_round = atoi(argv[2]);
  g_ms = atof(argv[3]);
  pthread_t* t = malloc(sizeof(pthread_t) * (size_t)per_round);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < per_round; ++i)
      if (pthread_create(&t[i], NULL, thread_main, NULL) != 0) return 1;
    for (int i = 0; i < per_round; ++i) pthread_join(t[i], NULL);
  }
  free(t);
  printf("threads=%d cpu_in_work=%.6f\n", rounds * per_round, g_cpu_in_work);
  return 0;
}
