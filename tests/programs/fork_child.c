/* The parent works, forks a child that works and exits normally (running atexit handlers),
 * then works again. Only the parent's profile must exist, without the child's samples. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void spin(double s) {
  double end = cpu_seconds() + s, x = 1;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) void parent_work(void) {
  spin(0.15);
}
__attribute__((noinline)) void child_work(void) {
  spin(0.3);
}

int main(void) {
  parent_work();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    child_work();
    exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  parent_work();
  printf("fork_child done %d\n", WEXITSTATUS(status));
  return 0;
}
