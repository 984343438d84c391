/* Programs that take away what the collector needs, chosen by argv[1]; each then spins 0.3 s
 * of CPU time in busy() and prints "hostile <mode> done".
 *   block-signals  blocks SIGPROF (and every signal it can) for its whole life
 *   close-fds      closes every descriptor above 2 (as daemons and some launchers do)
 *   close-fds-pipe the same, then for 0.3 s of CPU time passes numbered words through 32 pipes
 *                  (they get the lowest numbers, those of the descriptors it closed) and exits
 *                  4 if one is missing or wrong: nobody else may read its pipes
 *   exhaust-fds    opens /dev/null until no descriptor is left, and keeps them all
 *   plain          nothing */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "spin.h"

__attribute__((noinline)) static void busy(void) {
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.3);
}

static void close_fds_above_2(void) {
  struct rlimit lim;
  getrlimit(RLIMIT_NOFILE, &lim);
  for (int fd = 3; fd < (int)lim.rlim_cur && fd < 65536; ++fd) close(fd);
}

enum { kPipes = 32 };

static int pipe_words_survive(void) {
  int p[kPipes][2];
  for (int k = 0; k < kPipes; ++k) {
    if (pipe(p[k]) != 0) return 0;
    fcntl(p[k][0], F_SETFL, O_NONBLOCK);
  }
  const double t0 = thread_cpu_seconds();
  for (unsigned long i = 0; thread_cpu_seconds() - t0 < 0.3; ++i) {
    for (int k = 0; k < kPipes; ++k)
      if (write(p[k][1], &i, sizeof i) != (ssize_t)sizeof i) return 0;
    spin_for(CLOCK_THREAD_CPUTIME_ID, 50e-6); /* words wait in the pipes meanwhile */
    for (int k = 0; k < kPipes; ++k) {
      unsigned long in = 0;
      if (read(p[k][0], &in, sizeof in) != (ssize_t)sizeof in || in != i) {
        fprintf(stderr, "pipe word %lu lost (fd %d)\n", i, p[k][0]);
        return 0;
      }
    }
  }
  return 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  if (!strcmp(mode, "block-signals")) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
  } else if (!strcmp(mode, "close-fds")) {
    close_fds_above_2();
  } else if (!strcmp(mode, "close-fds-pipe")) {
    close_fds_above_2();
    if (!pipe_words_survive()) return 4;
    printf("hostile %s done\n", mode);
    return 0;
  } else if (!strcmp(mode, "exhaust-fds")) {
    int n = 0;
    while (open("/dev/null", O_RDONLY) >= 0) ++n;
    if (n == 0) return 3;
  } else if (strcmp(mode, "plain")) {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  busy();
  printf("hostile %s done\n", mode);
  return 0;
}
