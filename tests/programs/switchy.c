/* Threads that context-switch very often while computing, beside one that does not: two
 * threads pass a token back and forth through pipes, each computing TURN_US microseconds of
 * thread CPU time per turn and then blocking until the token comes back (one switch per turn),
 * while a third computes as long without blocking. Each thread prints its CPU time and its
 * context switches so far, voluntary and involuntary, as the kernel counts them.
 * Usage: switchy [TURNS=4000] [TURN_US=100] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "spin.h"

static int turns = 4000;
static double turn_s = 100e-6;
static int ping[2], pong[2];

static void report(const char* name) {
  struct rusage u;
  if (getrusage(RUSAGE_THREAD, &u) != 0) exit(4);
  printf("%s cpu_s %.6f switches %ld\n", name, thread_cpu_seconds(), u.ru_nvcsw + u.ru_nivcsw);
}

__attribute__((noinline)) static void pass_token(int in, int out, int first) {
  char token = 't';
  for (int i = 0; i < turns; ++i) {
    if (!first || i > 0)
      if (read(in, &token, 1) != 1) exit(3);
    spin_for(CLOCK_THREAD_CPUTIME_ID, turn_s);
    if (write(out, &token, 1) != 1) exit(3);
  }
}

static void* player_a(void* arg) {
  (void)arg;
  pass_token(pong[0], ping[1], 1);
  report("player_a");
  return NULL;
}

static void* player_b(void* arg) {
  (void)arg;
  pass_token(ping[0], pong[1], 0);
  report("player_b");
  return NULL;
}

__attribute__((noinline)) static void* steady(void* arg) {
  (void)arg;
  spin_for(CLOCK_THREAD_CPUTIME_ID, turns * turn_s);
  report("steady");
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) turns = atoi(argv[1]);
  if (argc > 2) turn_s = atof(argv[2]) * 1e-6;
  if (pipe(ping) != 0 || pipe(pong) != 0) return 2;
  pthread_t a, b, c;
  pthread_create(&a, NULL, player_a, NULL);
  pthread_create(&b, NULL, player_b, NULL);
  pthread_create(&c, NULL, steady, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  printf("switchy done\n");
  return 0;
}
