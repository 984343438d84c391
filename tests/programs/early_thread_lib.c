/* A library whose constructor starts a thread, as some runtimes and agents do: it runs before
 * omprof's collector starts (the loader initializes a program's libraries before preloaded ones),
 * so omprof never sees the thread start. The thread spins EARLY_THREAD_MS of CPU time (200 by
 * default) and ends; the program joins it through early_thread_join(). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

static pthread_t early;
static int started;

static void* early_work(void* arg) {
  (void)arg;
  const char* ms = getenv("EARLY_THREAD_MS");
  spin_for(CLOCK_THREAD_CPUTIME_ID, (ms ? atof(ms) : 200.0) / 1000.0);
  return NULL;
}

__attribute__((constructor)) static void start_early_thread(void) {
  started = pthread_create(&early, NULL, early_work, NULL) == 0;
}

int early_thread_join(void) {
  return started && pthread_join(early, NULL) == 0;
}
