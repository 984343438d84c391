#include "launcher/own_session.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

namespace omprof::launcher {

namespace {

volatile sig_atomic_t g_child = 0;

void pass_on(int sig) {
  if (g_child > 0) kill(pid_t(g_child), sig);
}

bool autogroup_on() {
  std::ifstream in("/proc/sys/kernel/sched_autogroup_enabled");
  int on = 0;
  return in >> on && on == 1;
}

constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

}  // namespace

int run_in_own_session(const std::function<int()>& work) {
  if (getsid(0) == getpid() || !autogroup_on()) return work();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) return work();  // no second process: read from here, as before
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // the parent died before the line above
    setsid();
    const int status = work();
    std::fflush(nullptr);
    _exit(status);
  }
  g_child = child;
  struct sigaction sa {};
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  for (int sig : kPassedOn) sigaction(sig, &sa, nullptr);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  // Ended by a signal (SIGPIPE when the reader of its output left, a signal passed on): this
  // process ends the same way.
  const int sig = WTERMSIG(status);
  signal(sig, SIG_DFL);
  raise(sig);
  return 128 + sig;
}

}  // namespace omprof::launcher
