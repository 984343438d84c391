/* Programs that take away what the collector needs, chosen by argv[1]; each then spins 0.3 s
 * of CPU time in busy() and prints "hostile <mode> done".
 *   block-signals  blocks SIGPROF (and every signal it can) for its whole life
 *   close-fds      closes every descriptor above 2 (as daemons and some launchers do)
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

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  if (!strcmp(mode, "block-signals")) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
  } else if (!strcmp(mode, "close-fds")) {
    struct rlimit lim;
    getrlimit(RLIMIT_NOFILE, &lim);
    for (int fd = 3; fd < (int)lim.rlim_cur && fd < 65536; ++fd) close(fd);
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
