// POSIX per-thread timers (timer_create with SIGEV_THREAD_ID), one-shot, on the thread's CPU
// clock or on CLOCK_MONOTONIC.
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "collector/clocks/clocks.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/thread_state.h"

namespace omprof::clocks {

namespace {

using handler::ThreadState;

// handler: timer_settime is async-signal-safe.
bool rearm(ThreadState* ts, uint64_t ns) {
  struct itimerspec spec {};
  spec.it_value.tv_sec = time_t(ns / 1000000000ULL);
  spec.it_value.tv_nsec = long(ns % 1000000000ULL);
  return timer_settime(ts->timer, 0, &spec, nullptr) == 0;
}

// handler: the timer's signal carries SI_TIMER and the thread's state as its value.
bool owns_signal(const ThreadState* ts, const siginfo_t* info) {
  return info->si_code == SI_TIMER && info->si_value.sival_ptr == ts;
}

bool arm(ThreadState* ts, clockid_t clock, int signo, uint64_t first_ns) {
  struct sigevent sev {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signo;
  sev.sigev_value.sival_ptr = ts;
  sev._sigev_un._tid = ts->tid;
  if (timer_create(clock, &sev, &ts->timer) != 0) {
    ts->timer_errno = errno;
    return false;
  }
  ts->timer_armed.store(true);
  if (!rearm(ts, first_ns)) {
    ts->timer_errno = errno;
    ts->timer_armed.store(false);
    timer_delete(ts->timer);
    return false;
  }
  return true;
}

void disarm(ThreadState* ts) {
  timer_delete(ts->timer);
}

uint32_t no_lost_cause(const ThreadState*) {
  return 0;
}

void nothing_to_release(ThreadState*) {}

const handler::SamplingClock kCpu = {
    "cpu",
    true,
    true,
    handler::thread_cpu_ns,
    owns_signal,
    rearm,
    [](ThreadState* ts, int signo, uint64_t first_ns) {
      return arm(ts, CLOCK_THREAD_CPUTIME_ID, signo, first_ns);
    },
    disarm,
    no_lost_cause,
    nothing_to_release,
    nullptr,  // POSIX timer signals are queued
};

const handler::SamplingClock kWall = {
    "wall",
    false,
    false,
    handler::monotonic_ns,
    owns_signal,
    rearm,
    [](ThreadState* ts, int signo, uint64_t first_ns) {
      return arm(ts, CLOCK_MONOTONIC, signo, first_ns);
    },
    disarm,
    no_lost_cause,
    nothing_to_release,
    nullptr,  // POSIX timer signals are queued
};

}  // namespace

const handler::SamplingClock& cpu_timer() {
  return kCpu;
}

const handler::SamplingClock& wall_timer() {
  return kWall;
}

}  // namespace omprof::clocks
