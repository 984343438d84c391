/* A program linked to a library that starts a thread in its constructor (early_thread_lib.c),
 * before omprof's collector starts. main spins 100 ms of CPU time, joins the early thread and
 * prints whether it did. */
#include <stdio.h>
#include <time.h>

#include "spin.h"

int early_thread_join(void);

int main(void) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.1);
  printf("early thread joined: %d\n", early_thread_join());
  return 0;
}
