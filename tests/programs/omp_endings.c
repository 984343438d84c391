/* A program with a designed CPU split that ends in a chosen way, for the tests of profiles that
 * survive the program's death (docs/format.md, "The journal").
 *
 *   omp_endings MODE SECONDS
 *
 * Two OpenMP threads each spend SECONDS of CPU time in rounds of heavy() for 3 ms then light()
 * for 1 ms (75% / 25% of their CPU time, at any moment of the run), then the program ends by
 * MODE: exit (return from main, status 0), status (exit(7)), _exit (_exit(3)), worker_exit (a
 * worker thread calls exit(5) while the master computes), segv, abort, term, int, hup, kill
 * (raise the signal), or xcpu (a 1 s CPU-time limit: SIGXCPU arrives during the rounds, which
 * then go on until it does). Prints the CPU time it spent before the ending on stdout. */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "spin.h"

__attribute__((noinline)) void heavy(void) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.003);
}
__attribute__((noinline)) void light(void) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.001);
}

static void* exit_from_worker(void* arg) {
  (void)arg;
  exit(5);
}

/* Rounds of 4 ms CPU on each thread until `seconds` of thread CPU time (forever if < 0). */
__attribute__((noinline)) void compute(double seconds) {
#pragma omp parallel num_threads(2)
  {
    const double start = thread_cpu_seconds();
    while (seconds < 0 || thread_cpu_seconds() - start < seconds) {
      heavy();
      light();
    }
  }
}

static int signal_of(const char* mode) {
  const struct {
    const char* name;
    int sig;
  } table[] = {{"segv", SIGSEGV}, {"abort", SIGABRT}, {"term", SIGTERM},
               {"int", SIGINT},   {"hup", SIGHUP},    {"kill", SIGKILL}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (strcmp(mode, table[i].name) == 0) return table[i].sig;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: omp_endings MODE SECONDS\n");
    return 2;
  }
  const char* mode = argv[1];
  const double seconds = atof(argv[2]);
  if (strcmp(mode, "xcpu") == 0) {
    struct rlimit lim = {1, RLIM_INFINITY};
    setrlimit(RLIMIT_CPU, &lim);
    compute(-1);
  }
  compute(seconds);
  printf("cpu_seconds=%.3f\n", clock_seconds(CLOCK_PROCESS_CPUTIME_ID));
  fflush(stdout);
  if (strcmp(mode, "status") == 0) exit(7);
  if (strcmp(mode, "_exit") == 0) _exit(3);
  if (strcmp(mode, "worker_exit") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, exit_from_worker, NULL);
    compute(-1);
  }
  if (strcmp(mode, "segv") == 0) {
    int* volatile nowhere = NULL;
    *nowhere = 1;
  }
  if (signal_of(mode)) raise(signal_of(mode));
  return 0;
}
