/* Region calls from a signal handler (issue: Registry::intern's mutex, held by the interrupted
 * region call, deadlocked every run). The main thread begins and ends regions of many distinct
 * names (each new name takes omprof's locks and allocates); a 2 kHz SIGALRM handler begins and
 * ends regions too, some of them new. Every handler call must return OMPROF_SUCCESS or
 * OMPROF_ERR_REENTERED; a watchdog ends the program with status 9 if it hangs.
 * Prints "handler_calls N", "handler_ok N", "handler_refused N", "handler_other N". */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

#include "omprof/omprof.h"

static volatile sig_atomic_t calls, ok, refused, other;

static void count(int status) {
  if (status == OMPROF_SUCCESS)
    ++ok;
  else if (status == OMPROF_ERR_REENTERED)
    ++refused;
  else
    ++other;
}

static void on_alarm(int signo) {
  (void)signo;
  char name[32] = "handler-";
  unsigned k = (unsigned)calls % 64, n = 8; /* 64 names, each new the first time */
  do name[n++] = (char)('0' + k % 10);
  while ((k /= 10) && n < 30);
  name[n] = 0;
  ++calls;
  count(omprof_region_begin(name));
  count(omprof_region_end(name));
}

static void* watchdog(void* arg) {
  (void)arg;
  unsigned left = 60; /* SIGALRM may land in this thread and cut a sleep short */
  while (left > 0) left = sleep(left);
  static const char msg[] = "hung: the program did not finish in 60 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(9);
}

int main(void) {
  pthread_t w;
  pthread_create(&w, NULL, watchdog, NULL);
  struct sigaction act = {0};
  act.sa_handler = on_alarm;
  sigemptyset(&act.sa_mask);
  sigaction(SIGALRM, &act, NULL);
  struct itimerval every = {{0, 500}, {0, 500}};
  setitimer(ITIMER_REAL, &every, NULL);
  char name[48];
  for (int i = 0; i < 40000; ++i) {
    snprintf(name, sizeof name, "main-%d", i);
    omprof_region_begin(name);
    omprof_region_begin("inner");
    omprof_region_end("inner");
    omprof_region_end(name);
    volatile double x = 1; /* time outside omprof too, where the handler's calls succeed */
    for (int k = 0; k < 2000; ++k) x = x * 1.0000001;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("handler_calls %d\nhandler_ok %d\nhandler_refused %d\nhandler_other %d\n", (int)calls,
         (int)ok, (int)refused, (int)other);
  return 0;
}
