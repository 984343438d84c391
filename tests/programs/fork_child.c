/* The parent works, forks a child that works and exits normally (running atexit handlers),
 * then works again. Only the parent's profile must exist, without the child's samples. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

__attribute__((noinline)) static void spin(double s) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, s);
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
