// Reading a thread's counter events in the signal handler (collector/counters.h opens them):
// one read() of the thread's perf_event group, after an fstat that makes sure the descriptor is
// still omprof's (a program that closed it and opened a pipe under the same number must not
// have its data read). Async-signal-safe: two system calls.
#pragma once

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::handler {

// The group's read format (collector/counters.cc opens it so, and the launcher's check): the
// number of events, the time enabled and running, then the values in event order.
constexpr uint64_t kCounterReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

// The group's values now, in event order, and its times into the thread's record. False if the
// descriptor is not omprof's any more or the read fails.
inline bool read_counter_group(ThreadState* ts, uint64_t* values) {
  if (ts->counter_fd < 0 || ts->counter_count == 0) return false;
  struct stat st {};
  if (fstat(ts->counter_fd, &st) != 0 || uint64_t(st.st_ino) != ts->counter_ino) return false;
  uint64_t buf[3 + journal::kMaxCounters] = {};
  const ssize_t want = ssize_t(sizeof(uint64_t) * (3 + ts->counter_count));
  if (read(ts->counter_fd, buf, sizeof buf) < want || buf[0] != ts->counter_count) return false;
  ts->counter_enabled_ns = buf[1];
  ts->counter_running_ns = buf[2];
  for (uint32_t i = 0; i < ts->counter_count; ++i) values[i] = buf[3 + i];
  return true;
}

// The counts since the thread's previous reading, into `deltas` (journal::kMaxCounters, unused
// ones 0); the thread's totals so far advance to now. A sampled leader's (event 0) deltas are
// left out: its own samples put its events on call paths. False (deltas untouched) when the
// group could not be read.
inline bool read_counter_deltas(ThreadState* ts, uint64_t* deltas) {
  uint64_t now[journal::kMaxCounters] = {};
  if (!read_counter_group(ts, now)) return false;
  for (uint32_t i = 0; i < journal::kMaxCounters; ++i) {
    const uint64_t before = ts->counter_totals[i];
    deltas[i] = i < ts->counter_count && now[i] > before ? now[i] - before : 0;
    if (i < ts->counter_count) ts->counter_totals[i] = now[i];
  }
  if (ts->counter_sample_period) deltas[0] = 0;
  return true;
}

// The signal is the sampled leader's overflow (a SIGPOLL code and its descriptor; also once the
// descriptor is closed, so that a signal still queued is not passed to the program).
inline bool owns_counter_signal(const ThreadState* ts, const siginfo_t* info) {
  return ts->counter_signal_fd >= 0 && info->si_code >= POLL_IN && info->si_code <= POLL_HUP &&
         info->si_fd == ts->counter_signal_fd;
}

// Enables the sampled leader for its next overflow (ioctl is async-signal-safe). A descriptor
// the program closed and reused is left alone.
inline void rearm_counter_sampling(const ThreadState* ts) {
  struct stat st {};
  if (fstat(ts->counter_fd, &st) == 0 && uint64_t(st.st_ino) == ts->counter_ino)
    ioctl(ts->counter_fd, PERF_EVENT_IOC_REFRESH, 1);
}

}  // namespace omprof::handler
