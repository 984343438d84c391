#include "collector/sampling.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collector/clocks/clocks.h"
#include "collector/counters.h"
#include "collector/handler/clock_fallback.h"
#include "collector/handler/sampling_clock.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/signal_handler.h"
#include "collector/runtime.h"
#include "collector/signal_chain.h"
#include "proto/coverage.h"

namespace omprof {

namespace {

const handler::SamplingClock& configured_clock() {
  switch (runtime().config.clock) {
    case ClockKind::kWall:
      return clocks::wall_timer();
    case ClockKind::kTask:
      return clocks::task_clock();
    case ClockKind::kCpu:
      break;
  }
  return clocks::cpu_timer();
}

bool arm_with(ThreadState* ts, const handler::SamplingClock& clock) {
  ts->clock = &clock;
  ts->grid_origin_ns = clock.now_ns();
  ts->last_clock_ns = ts->grid_origin_ns;
  return clock.arm(ts, runtime().config.signo, handler::first_interval_ns(ts));
}

// Whether `signo` is blocked in thread `tid` (/proc: another thread's mask has no API).
bool blocked_in_thread(pid_t tid, int signo) {
  char path[64], line[256];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", int(tid));
  FILE* f = std::fopen(path, "re");
  if (!f) return false;
  bool blocked = false;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "SigBlk:", 7) != 0) continue;
    const unsigned long long mask = std::strtoull(line + 7, nullptr, 16);
    blocked = (mask >> (signo - 1)) & 1;
    break;
  }
  std::fclose(f);
  return blocked;
}

}  // namespace

bool install_sampler() {
  const Config& cfg = runtime().config;
  handler::SamplingState& st = handler::sampling_state();
  st.period_ns = cfg.period_ns;
  st.max_depth = cfg.max_depth;
  st.signo = cfg.signo;
  const char* t = std::getenv("OMPROF_TIME_HANDLER");
  st.time_handler = t && *t == '1';
  if (cfg.clock == ClockKind::kTask) {
    handler::ClockFallback& f = handler::clock_fallback();
    f.from = &clocks::task_clock();
    f.to = &clocks::cpu_timer();
    f.switches_per_cpu_s = cfg.clock_fallback_per_cpu_s;
  }
  return install_profiling_handler(cfg.signo, handler::on_profiling_signal);
}

void start_thread_clock(ThreadState* ts) {
  open_thread_counters(ts);  // first: the first sample reads them
  const handler::SamplingClock& clock = configured_clock();
  if (arm_with(ts, clock)) return;
  // A thread whose task clock cannot be opened (descriptors exhausted, say) is sampled by a
  // POSIX CPU-time timer instead: the same clock, on kernel ticks.
  if (&clock == &clocks::task_clock()) {
    ts->timer_errno = 0;
    if (arm_with(ts, clocks::cpu_timer())) return;
  }
  ts->clock = nullptr;
  runtime().timer_create_failures.fetch_add(1);
}

void end_thread_sampling(ThreadState* ts, uint64_t cpu_ns, uint64_t mono_ns) {
  if (!ts->timer_armed.load()) {
    close_thread_counters(ts);
    return;
  }
  const uint64_t now = ts->clock->cpu_time ? cpu_ns : mono_ns;
  const uint64_t period = runtime().config.period_ns;
  ts->armed_clock_ns = now > ts->grid_origin_ns ? now - ts->grid_origin_ns : 0;
  // Fewer sampled strata than whole periods elapsed: find out why (the checks cost a system
  // call or a /proc read, so only then).
  if (ts->strata_sampled + 1 < ts->armed_clock_ns / period) {
    if (blocked_in_thread(ts->tid, runtime().config.signo))
      ts->sampling_lost |= format::kLostSignalBlocked;
    ts->sampling_lost |= ts->clock->lost_cause(ts);
  }
  if (ts->timer_armed.exchange(false)) ts->clock->disarm(ts);
  close_thread_counters(ts);
}

void release_clocks_in_child() {
  for (uint32_t i = 0; i < thread_count(); ++i)
    if (ThreadState* ts = thread_at(i)) {
      if (ts->clock) ts->clock->release_in_child(ts);
      close_thread_counters(ts);  // the child's copies of the parent's counters
    }
}

HandlerStats handler_stats() {
  const handler::SamplingState& st = handler::sampling_state();
  return {st.handler_calls.load(), st.handler_ns.load()};
}

}  // namespace omprof
