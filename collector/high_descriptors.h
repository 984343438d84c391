// Where omprof keeps the descriptors it holds for a whole run: high numbers inside the limit,
// since programs expect the lowest free numbers from open(), and a program that closes every
// descriptor and opens new ones gets the low ones back (tests/programs/hostile.c).
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace omprof {

// Async-signal-safe (system calls only). `fd` moved to a high number (1000, or 24 below a limit
// of 1024 or less), close-on-exec; `fd` itself where that is not possible.
inline int move_descriptor_high(int fd) {
  rlimit lim{};
  if (fd < 0 || getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur <= 64) return fd;
  const rlim_t want = lim.rlim_cur > 1024 ? 1000 : lim.rlim_cur - 24;
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, int(want));
  if (high < 0) return fd;
  close(fd);
  return high;
}

}  // namespace omprof
