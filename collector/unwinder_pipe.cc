// libunwind (1.6) checks that an address it is about to read is readable by writing one byte
// from it into a pipe of its own, which it makes with pipe2() on first use and again whenever
// reading it fails: the lowest free descriptors, 3 and 4 in most programs. A program that closes
// every descriptor (as daemons do) and opens its own pipe under those numbers then had libunwind
// read and write it from omprof's signal handler: its data lost or corrupted
// (Hostile.LibunwindNeverTouchesTheProgramsPipes). omprof exports pipe2: a pipe made while
// omprof unwinds (the only time libunwind makes one) goes to high descriptor numbers, which
// programs do not reuse. The program's own pipe2 calls are the system call, as libc's are.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/handler/reentrancy.h"
#include "collector/high_descriptors.h"

extern "C" __attribute__((visibility("default"))) int pipe2(int fds[2], int flags) {
  const int rc = int(syscall(SYS_pipe2, fds, flags));
  if (rc != 0 || omprof::handler::current_section() == omprof::handler::Section::kProgram)
    return rc;
  // Async-signal-safe: libunwind may make its pipe again inside the handler.
  fds[0] = omprof::move_descriptor_high(fds[0]);
  fds[1] = omprof::move_descriptor_high(fds[1]);
  return rc;
}
