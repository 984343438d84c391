/* Threads with small stacks that run with little of them left: for each stack size (16 KB and
 * 64 KB), a thread uses all but FREE bytes (argv[1], default 6144) of its stack and spins there
 * for 0.3 s of CPU time. Alone it runs fine; a profiler's signal handler that needs more than
 * what is left must not crash it. Prints "stack_kb N left_bytes M spun_ms T" per thread. */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t g_free = 6144;

static double thread_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uintptr_t g_low;
static size_t g_left;

__attribute__((noinline)) static double spin_with_little_stack(volatile char* used) {
  char here;
  g_left = (size_t)((uintptr_t)&here - g_low);
  const double start = thread_cpu_s();
  double x = 1.0;
  while (thread_cpu_s() - start < 0.3)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x + used[0];
}

static void* body(void* arg) {
  size_t* report = arg;
  pthread_attr_t attr;
  pthread_getattr_np(pthread_self(), &attr);
  void* low;
  size_t size;
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  char here;
  const size_t left_now = (size_t)((uintptr_t)&here - (uintptr_t)low);
  const size_t use = left_now > g_free + 512 ? left_now - g_free - 512 : 0;
  volatile char* block = alloca(use);
  for (size_t i = 0; i < use; i += 1024) block[i] = 1; /* the pages are really used */
  g_low = (uintptr_t)low;
  const double start = thread_cpu_s();
  report[2] = spin_with_little_stack(block) > 0 ? 1 : 0;
  report[0] = g_left;
  report[1] = (size_t)((thread_cpu_s() - start) * 1000);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) g_free = (size_t)atol(argv[1]);
  const size_t sizes_kb[] = {16, 64};
  for (int k = 0; k < 2; ++k) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, sizes_kb[k] * 1024);
    pthread_t t;
    size_t report[3] = {0, 0, 0};
    if (pthread_create(&t, &attr, body, report) != 0) return 2;
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    printf("stack_kb %zu left_bytes %zu spun_ms %zu\n", sizes_kb[k], report[0], report[1]);
  }
  return 0;
}
