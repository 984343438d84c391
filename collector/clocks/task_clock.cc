// perf_event task-clock per thread (--clock task): a software counter of the thread's CPU time
// that signals the thread (F_SETSIG, F_SETOWN_EX) when its period overflows, re-enabled for one
// overflow at a time.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/clocks/clocks.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/thread_state.h"
#include "proto/coverage.h"

namespace omprof::clocks {

namespace {

using handler::ThreadState;

int open_task_clock(pid_t tid, uint64_t period_ns) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = period_ns;
  attr.disabled = 1;
  attr.wakeup_events = 1;
  return int(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Whether the thread's descriptor is still the one omprof opened: the program may close it and
// reuse the number.
bool owns_fd(const ThreadState* ts) {
  struct stat st {};
  return ts->perf_fd >= 0 && fstat(ts->perf_fd, &st) == 0 && uint64_t(st.st_ino) == ts->perf_ino;
}

// handler: ioctl is async-signal-safe.
bool rearm(ThreadState* ts, uint64_t ns) {
  return ioctl(ts->perf_fd, PERF_EVENT_IOC_PERIOD, &ns) == 0 &&
         ioctl(ts->perf_fd, PERF_EVENT_IOC_REFRESH, 1) == 0;
}

// handler: an overflow signal carries a SIGPOLL code and the event's descriptor.
bool owns_signal(const ThreadState* ts, const siginfo_t* info) {
  return ts->perf_fd >= 0 && info->si_code >= POLL_IN && info->si_code <= POLL_HUP &&
         info->si_fd == ts->perf_fd;
}

bool arm(ThreadState* ts, int signo, uint64_t first_ns) {
  const int fd = open_task_clock(ts->tid, first_ns);
  if (fd < 0) {
    ts->timer_errno = errno;
    return false;
  }
  f_owner_ex owner{F_OWNER_TID, ts->tid};
  if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
      fcntl(fd, F_SETOWN_EX, &owner) != 0) {
    ts->timer_errno = errno;
    close(fd);
    return false;
  }
  struct stat st {};
  fstat(fd, &st);
  ts->perf_fd = fd;
  ts->perf_ino = uint64_t(st.st_ino);
  ts->timer_armed.store(true);
  rearm(ts, first_ns);
  return true;
}

// perf_fd stays set: a signal still queued is recognised and ignored. A descriptor the program
// closed (and whose number it may have reused) is not ours to close.
void disarm(ThreadState* ts) {
  if (owns_fd(ts)) close(ts->perf_fd);
}

uint32_t lost_cause(const ThreadState* ts) {
  return owns_fd(ts) ? 0 : format::kLostClockFdClosed;
}

// The child's copy of the descriptor: closed, so that its descriptor table is what it would be
// without omprof.
void release_in_child(ThreadState* ts) {
  if (owns_fd(ts)) close(ts->perf_fd);
  ts->perf_fd = -1;
}

// handler: one more overflow allowed. If the last one's signal was lost, the descriptor stopped
// counting there and resumes (the next sample comes one period later); if not, it keeps going
// past its next overflow, whose handler re-arms it as usual.
void revive(ThreadState* ts) {
  if (ts->perf_fd >= 0) ioctl(ts->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}

const handler::SamplingClock kTask = {
    "task", true,   false,      handler::thread_cpu_ns, owns_signal, rearm,
    arm,    disarm, lost_cause, release_in_child,       revive,
};

}  // namespace

const handler::SamplingClock& task_clock() {
  return kTask;
}

}  // namespace omprof::clocks
