/* Installs its own SIGPROF handler, then (1) sends itself 10 SIGPROFs and (2) uses
 * setitimer(ITIMER_PROF) for a while: every one of those signals must reach this handler.
 * Prints the counts; exits 1 if a signal went missing.
 * With "raise": computes for 1 s of CPU time, raising SIGPROF every 100 us of it, and prints
 * how many it raised and how many its handler got. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t raised_count, itimer_count;
static volatile sig_atomic_t phase;

static void on_prof(int sig, siginfo_t* info, void* uc) {
  (void)sig;
  (void)uc;
  if (phase == 0 && info->si_code == SI_TKILL) raised_count++;
  if (phase == 1 && info->si_code == SI_KERNEL) itimer_count++;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void spin(double s) {
  volatile double x = 0;
  double end = cpu_seconds() + s;
  while (cpu_seconds() < end) x += 1;
}

static int raise_often(void) {
  int raised = 0;
  const double end = cpu_seconds() + 1.0;
  while (cpu_seconds() < end) {
    spin(100e-6);
    raise(SIGPROF);
    ++raised;
  }
  printf("raised=%d got=%d\n", raised, (int)raised_count);
  return 0;
}

int main(int argc, char** argv) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  if (argc > 1 && strcmp(argv[1], "raise") == 0) return raise_often();
  for (int i = 0; i < 10; ++i) raise(SIGPROF);
  phase = 1;
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_PROF, &it, NULL);
  spin(0.5);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  /* The handler is still the application's as far as it can tell. */
  struct sigaction now;
  sigaction(SIGPROF, NULL, &now);
  int same = now.sa_sigaction == on_prof;
  printf("raised=%d itimer=%d same_handler=%d\n", (int)raised_count, (int)itimer_count, same);
  return (raised_count == 10 && itimer_count >= 10 && same) ? 0 : 1;
}
