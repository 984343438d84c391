#include "collector/counters.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/handler/counter_read.h"
#include "collector/runtime.h"

namespace omprof {

namespace {

// An event on the calling thread, in `group` (-1: it leads its own). The leader reads the whole
// group at once; all start together. `period`: the leader also overflows every `period` events
// (0: it only counts).
int open_event(const counters::PerfEncoding& perf, int group, uint64_t period) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = perf.type;
  attr.config = perf.config;
  attr.config1 = perf.config1;
  attr.config2 = perf.config2;
  attr.read_format = handler::kCounterReadFormat;
  attr.disabled = group < 0 ? 1 : 0;
  attr.exclude_hv = 1;
  attr.sample_period = period;
  attr.wakeup_events = period ? 1 : 0;
  return int(syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
}

// The sampled leader signals the thread (as the task clock does: F_SETSIG, F_SETOWN_EX) at each
// overflow, one overflow at a time (the handler re-enables it: handler/counter_read.h).
bool signal_overflows(ThreadState* ts, int fd) {
  f_owner_ex owner{F_OWNER_TID, ts->tid};
  return fcntl(fd, F_SETFL, O_ASYNC) == 0 && fcntl(fd, F_SETSIG, runtime().config.signo) == 0 &&
         fcntl(fd, F_SETOWN_EX, &owner) == 0;
}

void close_all(ThreadState* ts) {
  for (int& fd : ts->counter_member_fds)
    if (fd >= 0) {
      close(fd);
      fd = -1;
    }
  if (ts->counter_fd >= 0) close(ts->counter_fd);
  ts->counter_fd = -1;
  ts->counter_count = 0;
}

// Whether the group leader is still the descriptor omprof opened (the program may have closed
// it: its members' numbers may then be the program's too).
bool owns_group(const ThreadState* ts) {
  struct stat st {};
  return ts->counter_fd >= 0 && fstat(ts->counter_fd, &st) == 0 &&
         uint64_t(st.st_ino) == ts->counter_ino;
}

}  // namespace

void open_thread_counters(ThreadState* ts) {
  const auto& events = runtime().config.counter_events;
  if (events.empty() || ts->counter_fd >= 0) return;
  const uint64_t period = events[0].sample_period;  // the sampled event leads (counter_events.h)
  const int leader = open_event(events[0].perf, -1, period);
  if (leader < 0) {
    ts->counter_errno = errno;
    return;
  }
  ts->counter_fd = leader;
  for (size_t i = 1; i < events.size(); ++i) {
    const int fd = open_event(events[i].perf, leader, 0);
    if (fd < 0) {
      ts->counter_errno = errno;
      close_all(ts);
      return;
    }
    ts->counter_member_fds[i - 1] = fd;
  }
  struct stat st {};
  fstat(leader, &st);
  ts->counter_ino = uint64_t(st.st_ino);
  ts->counter_sample_period = period;
  if (period) ts->counter_signal_fd = leader;
  const bool started =
      period ? signal_overflows(ts, leader) && ioctl(leader, PERF_EVENT_IOC_REFRESH, 1) == 0
             : ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0;
  if (!started) {
    ts->counter_errno = errno;
    close_all(ts);
    return;
  }
  // Last: the handler reads the group only once it is complete and counting.
  __atomic_store_n(&ts->counter_count, uint32_t(events.size()), __ATOMIC_RELEASE);
}

void close_thread_counters(ThreadState* ts) {
  if (ts->counter_fd < 0) return;
  uint64_t deltas[journal::kMaxCounters] = {};
  handler::read_counter_deltas(ts, deltas);  // the totals advance to the end
  if (owns_group(ts)) {
    close_all(ts);
    return;
  }
  ts->counter_fd = -1;  // the program's now: not ours to close, nor its neighbours
  ts->counter_count = 0;
}

}  // namespace omprof
