#include "launcher/perf_refusal.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace omprof::launcher {

namespace {

// The level, or -1 when it cannot be read.
int paranoid_level() {
  FILE* f = std::fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  int level = -1;
  if (f && std::fscanf(f, "%d", &level) != 1) level = -1;
  if (f) std::fclose(f);
  return level;
}

}  // namespace

std::string perf_refusal(int error) {
  std::string why = std::strerror(error);
  if (error == ENOENT || error == EOPNOTSUPP) return why + " (the kernel has no such event)";
  if (error != EACCES && error != EPERM) return why;
  const int level = paranoid_level();
  if (level < 0) return why + " (see /proc/sys/kernel/perf_event_paranoid)";
  const std::string is = " (kernel.perf_event_paranoid is " + std::to_string(level);
  if (level >= 2)
    return why + is +
           ": an unprivileged process may count its threads' kernel-mode time and events, "
           "which omprof counts, only at 1 or lower or with CAP_PERFMON)";
  return why + is + ", which allows it: a seccomp filter or the container forbids perf_event_open)";
}

}  // namespace omprof::launcher
