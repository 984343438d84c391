#include "collector/sampler.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include <cstdlib>

#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/signal_chain.h"
#include "omp/sample_context.h"
#include "unwind/module_map.h"
#include "unwind/stack_capture.h"

namespace omprof {

namespace {

// Handler self-timing is opt-in (OMPROF_TIME_HANDLER=1, used by bench/) since the two clock
// reads are a measurable part of the handler's own cost.
bool g_time_handler = false;
std::atomic<uint64_t> g_handler_calls{0};
std::atomic<uint64_t> g_handler_ns{0};

void read_context(SampleContext& ctx) {
  omp::read_sample_context(ctx);
  // The explicit region the thread is in; idle workers are in none.
  ctx.region_node = ctx.omp_state == omp::kStateIdleDerived ? 0 : current_region_node();
}

void take_sample(ThreadState* ts, siginfo_t* info, void* ucontext) {
  const Config& cfg = runtime().config;
  // A CPU-time timer fires at most once per kernel tick; the overrun count says how many
  // periods this one signal stands for, so totals stay right at rates above the tick rate.
  const uint64_t count = 1 + uint64_t(info->si_overrun > 0 ? info->si_overrun : 0);
  if (ts->defer_samples) {
    // The thread is unwinding itself (OpenMP fork callback) and libunwind is not reentrant:
    // hand the sample to that code, which records it with the stack it is capturing.
    read_context(ts->deferred.ctx);
    ts->deferred.weight_ns += count * cfg.period_ns;
    ts->deferred.count += count;  // last: the reader checks it before and after
    return;
  }
  unwind::set_in_signal_handler(true);
  unwind::CaptureResult r =
      unwind::capture_signal_stack(ucontext, ts->scratch, ts->frames, cfg.max_depth);
  unwind::set_in_signal_handler(false);

  SampleContext ctx;
  read_context(ctx);

  const uint16_t flags =
      (r.truncated ? kStackTruncated : 0) | (r.unwind_failed ? kStackUnwindFailed : 0);
  ts->table.add(ts->frames, r.depth, flags, ctx, count, count * cfg.period_ns);
  if (r.truncated) ts->truncated_samples += count;
  if (r.unwind_failed) ts->unwind_failed += count;
}

void on_profiling_signal(int signo, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  ThreadState* ts = current_thread();
  if (info && info->si_code == SI_TIMER && ts && info->si_value.sival_ptr == ts) {
    Runtime& rt = runtime();
    rt.handlers_in_flight.fetch_add(1);
    if (!rt.stopped.load()) {
      if (g_time_handler) {
        uint64_t t0 = monotonic_ns();
        take_sample(ts, info, ucontext);
        g_handler_ns.fetch_add(monotonic_ns() - t0, std::memory_order_relaxed);
        g_handler_calls.fetch_add(1, std::memory_order_relaxed);
      } else {
        take_sample(ts, info, ucontext);
      }
    }
    rt.handlers_in_flight.fetch_sub(1);
  } else {
    forward_to_application(signo, info, ucontext);
  }
  errno = saved_errno;
}

}  // namespace

bool install_sampler() {
  const char* t = std::getenv("OMPROF_TIME_HANDLER");
  g_time_handler = t && *t == '1';
  return install_profiling_handler(runtime().config.signo, on_profiling_signal);
}

void arm_thread_timer(ThreadState* ts) {
  const Config& cfg = runtime().config;
  struct sigevent sev {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = cfg.signo;
  sev.sigev_value.sival_ptr = ts;
  sev._sigev_un._tid = ts->tid;
  const clockid_t clock = cfg.clock == ClockKind::kCpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  if (timer_create(clock, &sev, &ts->timer) != 0) {
    ts->timer_errno = errno;
    runtime().timer_create_failures.fetch_add(1);
    return;
  }
  struct itimerspec spec {};
  spec.it_interval.tv_sec = time_t(cfg.period_ns / 1000000000ULL);
  spec.it_interval.tv_nsec = long(cfg.period_ns % 1000000000ULL);
  spec.it_value = spec.it_interval;
  ts->timer_armed.store(true);
  if (timer_settime(ts->timer, 0, &spec, nullptr) != 0) {
    ts->timer_errno = errno;
    disarm_thread_timer(ts);
    runtime().timer_create_failures.fetch_add(1);
  }
}

void disarm_thread_timer(ThreadState* ts) {
  if (ts->timer_armed.exchange(false)) timer_delete(ts->timer);
}

HandlerStats handler_stats() {
  return {g_handler_calls.load(), g_handler_ns.load()};
}

void begin_deferring_samples(ThreadState* ts) {
  ts->defer_samples = true;
}

void end_deferring_samples(ThreadState* ts, const uint64_t* frames, uint32_t depth,
                           bool truncated) {
  // Take what the handler deferred. It runs on this thread and completes before this code
  // continues, so re-reading the count tells whether one ran between the two reads.
  uint64_t count, weight;
  do {
    count = __atomic_load_n(&ts->deferred.count, __ATOMIC_RELAXED);
    weight = __atomic_load_n(&ts->deferred.weight_ns, __ATOMIC_RELAXED);
  } while (count != __atomic_load_n(&ts->deferred.count, __ATOMIC_RELAXED));
  if (count) {
    const SampleContext ctx = ts->deferred.ctx;
    // Single instructions: a signal cannot land between their load and store.
    __atomic_fetch_sub(&ts->deferred.count, count, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&ts->deferred.weight_ns, weight, __ATOMIC_RELAXED);
    ts->table.add(frames, depth, truncated ? kStackTruncated : 0, ctx, count, weight);
  }
  ts->defer_samples = false;
}

}  // namespace omprof
