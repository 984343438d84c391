#include "collector/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/signal_chain.h"
#include "collector/task_clock.h"
#include "omp/sample_context.h"
#include "proto/coverage.h"
#include "unwind/module_map.h"
#include "unwind/stack_capture.h"

namespace omprof {

namespace {

// Handler self-timing is opt-in (OMPROF_TIME_HANDLER=1, used by bench/) since the two clock
// reads are a measurable part of the handler's own cost.
bool g_time_handler = false;
std::atomic<uint64_t> g_handler_calls{0};
std::atomic<uint64_t> g_handler_ns{0};

constexpr uint32_t kSamplesBeforeTraceCache = 8;

void read_context(SampleContext& ctx) {
  omp::read_sample_context(ctx);
  // The explicit region the thread is in; idle workers are in none.
  ctx.region_node = ctx.omp_state == omp::kStateIdleDerived ? 0 : current_region_node();
}

// Stratified sampling. The thread's sampling clock (its CPU time, or wall time for --clock wall)
// is cut into strata of one period from the moment its timer is armed; each stratum gets one
// sample at a uniformly random offset inside it (next_interval_ns). A sample stands for the
// strata since the previous one (normally one; more when a signal came late, e.g. on the next
// kernel tick), so per-thread totals equal the clock up to the last sample and every instant is
// equally likely to be sampled: no phase-locking with periodic programs, no bias, and less
// variance than independent random instants.
uint64_t sampling_clock_ns() {
  return runtime().config.clock == ClockKind::kWall ? monotonic_ns() : thread_cpu_ns();
}

// Returns the weight of a sample taken now and sets `now_offset` to the position inside the
// current stratum.
uint64_t close_strata(ThreadState* ts, uint64_t now, uint64_t& now_offset) {
  const uint64_t period = runtime().config.period_ns;
  const uint64_t since = now > ts->grid_origin_ns ? now - ts->grid_origin_ns : 0;
  const uint64_t stratum = since / period;
  now_offset = since % period;
  const uint64_t strata = stratum + 1 > ts->strata_sampled ? stratum + 1 - ts->strata_sampled : 0;
  ts->strata_sampled = stratum + 1;
  return strata * period;
}

void take_sample(ThreadState* ts, uint64_t weight_ns, void* ucontext) {
  const Config& cfg = runtime().config;
  if (ts->defer_samples) {
    // The thread is unwinding itself (OpenMP fork callback) and libunwind is not reentrant:
    // hand the sample to that code, which records it with the stack it is capturing.
    read_context(ts->deferred.ctx);
    ts->deferred.weight_ns += weight_ns;
    ts->deferred.count += 1;  // last: the reader checks it before and after
    return;
  }
  // A thread's first samples are unwound step by step: most short-lived threads never need
  // libunwind's per-thread trace cache, which costs more to create than those samples.
  if (!ts->trace_cache_warm && ++ts->samples_unwound > kSamplesBeforeTraceCache)
    ts->trace_cache_warm = true;
  const bool use_trace_cache = ts->trace_cache_warm;
  unwind::set_in_signal_handler(true);
  unwind::CaptureResult r = unwind::capture_signal_stack(ucontext, ts->scratch, ts->frames,
                                                         cfg.max_depth, use_trace_cache);
  unwind::set_in_signal_handler(false);

  SampleContext ctx;
  read_context(ctx);

  const uint16_t flags =
      (r.truncated ? kStackTruncated : 0) | (r.unwind_failed ? kStackUnwindFailed : 0);
  ts->table.add(ts->frames, r.depth, flags, ctx, 1, weight_ns);
  if (r.truncated) ts->truncated_samples += 1;
  if (r.unwind_failed) ts->unwind_failed += 1;
}

// Time from now (at `now_offset` inside the current stratum) to a uniformly random instant of
// the next stratum (xorshift64*, one state per thread: async-signal-safe).
uint64_t next_interval_ns(ThreadState* ts, uint64_t now_offset) {
  uint64_t x = ts->rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  ts->rng_state = x;
  const uint64_t r = x * 0x2545F4914F6CDD1DULL;
  const uint64_t period = runtime().config.period_ns;
  const uint64_t ns = period - now_offset + (r >> 11) % period;
  return ns ? ns : 1;  // a zero timer value would disarm
}

// One-shot POSIX timer for the next interval (timer_settime is async-signal-safe).
bool set_posix_timer(ThreadState* ts, uint64_t now_offset) {
  const uint64_t ns = next_interval_ns(ts, now_offset);
  struct itimerspec spec {};
  spec.it_value.tv_sec = time_t(ns / 1000000000ULL);
  spec.it_value.tv_nsec = long(ns % 1000000000ULL);
  return timer_settime(ts->timer, 0, &spec, nullptr) == 0;
}

// Sets the task-clock's next period and re-enables it for one overflow.
void rearm_task_clock(ThreadState* ts, uint64_t now_offset) {
  uint64_t ns = next_interval_ns(ts, now_offset);
  ioctl(ts->perf_fd, PERF_EVENT_IOC_PERIOD, &ns);
  ioctl(ts->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}

// A perf_event overflow signal (F_SETSIG) carries a SIGPOLL code and the event's fd.
bool from_perf_event(const siginfo_t* info, const ThreadState* ts) {
  return ts->perf_fd >= 0 && info->si_code >= POLL_IN && info->si_code <= POLL_HUP &&
         info->si_fd == ts->perf_fd;
}

void on_profiling_signal(int signo, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  ThreadState* ts = current_thread();
  const bool perf = info && ts && from_perf_event(info, ts);
  if (perf || (info && info->si_code == SI_TIMER && ts && info->si_value.sival_ptr == ts)) {
    Runtime& rt = runtime();
    rt.handlers_in_flight.fetch_add(1);
    if (!rt.stopped.load()) {
      uint64_t now_offset = 0;
      const uint64_t weight_ns = close_strata(ts, sampling_clock_ns(), now_offset);
      if (g_time_handler) {
        uint64_t t0 = monotonic_ns();
        take_sample(ts, weight_ns, ucontext);
        g_handler_ns.fetch_add(monotonic_ns() - t0, std::memory_order_relaxed);
        g_handler_calls.fetch_add(1, std::memory_order_relaxed);
      } else {
        take_sample(ts, weight_ns, ucontext);
      }
      // Timers are one-shot with a fresh random interval each time. Shutdown sets `stopped`
      // and waits for handlers in flight before it deletes timers, so none is re-armed after.
      if (ts->timer_armed.load()) {
        if (perf)
          rearm_task_clock(ts, now_offset);
        else
          set_posix_timer(ts, now_offset);
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

namespace {

// --clock task: a perf_event task-clock on the calling thread that signals this thread after
// every period of its CPU time (an hrtimer while it runs, so not limited to kernel ticks).
bool arm_task_clock(ThreadState* ts, const Config& cfg) {
  const int fd = open_task_clock(ts->tid, cfg.period_ns);
  if (fd < 0) {
    ts->timer_errno = errno;
    return false;
  }
  f_owner_ex owner{F_OWNER_TID, ts->tid};
  if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, cfg.signo) != 0 ||
      fcntl(fd, F_SETOWN_EX, &owner) != 0) {
    ts->timer_errno = errno;
    close(fd);
    return false;
  }
  struct stat st {};
  fstat(fd, &st);
  ts->perf_fd = fd;
  ts->perf_ino = uint64_t(st.st_ino);
  ts->grid_origin_ns = sampling_clock_ns();
  ts->timer_armed.store(true);
  rearm_task_clock(ts, cfg.period_ns);  // first sample: inside stratum 0
  return true;
}

}  // namespace

void arm_thread_timer(ThreadState* ts) {
  const Config& cfg = runtime().config;
  // A thread whose task clock cannot be opened (descriptors exhausted, say) is sampled by a
  // POSIX CPU-time timer instead: the same clock, on kernel ticks.
  if (cfg.clock == ClockKind::kTask && arm_task_clock(ts, cfg)) return;
  ts->timer_errno = 0;
  struct sigevent sev {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = cfg.signo;
  sev.sigev_value.sival_ptr = ts;
  sev._sigev_un._tid = ts->tid;
  const clockid_t clock = cfg.clock == ClockKind::kWall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
  if (timer_create(clock, &sev, &ts->timer) != 0) {
    ts->timer_errno = errno;
    runtime().timer_create_failures.fetch_add(1);
    return;
  }
  ts->grid_origin_ns = sampling_clock_ns();
  ts->timer_armed.store(true);
  if (!set_posix_timer(ts, cfg.period_ns)) {  // first sample: inside stratum 0
    ts->timer_errno = errno;
    disarm_thread_timer(ts);
    runtime().timer_create_failures.fetch_add(1);
  }
}

bool owns_task_clock_fd(const ThreadState* ts) {
  struct stat st {};
  return ts->perf_fd >= 0 && fstat(ts->perf_fd, &st) == 0 && uint64_t(st.st_ino) == ts->perf_ino;
}

void disarm_thread_timer(ThreadState* ts) {
  if (!ts->timer_armed.exchange(false)) return;
  // perf_fd stays set: a signal still queued is recognised and ignored. A descriptor the
  // program closed (and whose number it may have reused) is not ours to close.
  if (ts->perf_fd >= 0) {
    if (owns_task_clock_fd(ts)) close(ts->perf_fd);
  } else {
    timer_delete(ts->timer);
  }
}

namespace {

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

void end_thread_sampling(ThreadState* ts, uint64_t clock_now_ns) {
  if (!ts->timer_armed.load()) return;
  const Config& cfg = runtime().config;
  ts->armed_clock_ns = clock_now_ns > ts->grid_origin_ns ? clock_now_ns - ts->grid_origin_ns : 0;
  // Fewer sampled strata than whole periods elapsed: find out why (the checks cost a system
  // call or a /proc read, so only then).
  if (ts->strata_sampled + 1 < ts->armed_clock_ns / cfg.period_ns) {
    if (blocked_in_thread(ts->tid, cfg.signo)) ts->sampling_lost |= format::kLostSignalBlocked;
    if (ts->perf_fd >= 0 && !owns_task_clock_fd(ts))
      ts->sampling_lost |= format::kLostClockFdClosed;
  }
  disarm_thread_timer(ts);
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
