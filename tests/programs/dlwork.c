/* A library the dlopen test loads, samples in, and unloads again. */
#include <time.h>

#include "spin.h"

__attribute__((noinline)) void dl_work(double seconds) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
}
