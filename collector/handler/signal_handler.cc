#include "collector/handler/signal_handler.h"

#include <errno.h>

#include "collector/handler/clock_fallback.h"
#include "collector/handler/counter_read.h"
#include "collector/handler/forward_signal.h"
#include "collector/handler/idle_workers.h"
#include "collector/handler/intervals.h"
#include "collector/handler/off_cpu_trail.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/handler/reentrancy.h"
#include "collector/handler/sample_measures.h"
#include "collector/handler/sampling_clock.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/stack_capture.h"

namespace omprof::handler {

namespace {

constexpr uint32_t kSamplesBeforeTraceCache = 8;

// Stack a full sample needs below the interrupted frame: the kernel's signal frame (about
// 3.5 KB with AVX-512 state), this handler and libunwind together used 11.5 KB at most
// (measured by painting a thread's stack, docs/reliability.md), plus the 2.3 KB of glibc's
// thread descriptor that stack_bounds.h counts as usable, plus a margin. With less left, the
// sample keeps only the interrupted pc: without unwinding the handler used 4.5 KB with the
// signal frame.
constexpr uintptr_t kUnwindStackBytes = 20 * 1024;

// Whether the thread's stack is known and has less than kUnwindStackBytes left below this
// handler's frame (a handler running on another stack, a coroutine's, is not judged).
bool stack_is_short(const ThreadState* ts) {
  const auto sp = uintptr_t(__builtin_frame_address(0));
  return sp > ts->stack_low && sp < ts->stack_high && sp - ts->stack_low < kUnwindStackBytes;
}

void read_context(const ThreadState* ts, SampleContext& ctx) {
  read_omp_context(ts, ctx);
  // Inside MPI the OpenMP state says "work": the MPI call is what the thread is doing.
  if (const uint32_t call = ts->mpi_call.load(std::memory_order_relaxed))
    ctx.omp_state = format::kMpiFirst + call;
  // The explicit region the thread is in; idle workers are in none.
  if (ctx.omp_state != format::kIdleDerived && ts->region_node)
    ctx.region_node = ts->region_node->load(std::memory_order_relaxed);
}

// Stratified sampling. The thread's sampling clock (its CPU time, or wall time for --clock wall)
// is cut into strata of one period from the moment its clock is armed; each stratum gets one
// sample at a uniformly random offset inside it (next_interval_ns). A sample stands for the
// strata since the previous one (normally one; more when a signal came late), so per-thread
// totals equal the clock up to the last sample and every instant is equally likely to be
// sampled: no phase-locking with periodic programs, no bias, and less variance than independent
// random instants.
//
// Clocks that fire only on kernel ticks (SamplingClock::on_ticks) cannot place a sample at a
// chosen instant, and a fixed strata grid then weighs some tick positions more than others: a
// program whose period is a multiple of the tick aliased (0.52 to 0.68 for a 0.60 share, 20 ms
// period, HZ=250). There the samples form a renewal process instead: each next target is a
// random 0.5 to 1.5 periods away, the signal comes on the first tick after it, and a sample
// stands for the clock's advance since the previous one. Every tick is then equally likely to
// be sampled in the long run, whatever the program's period, and totals still equal the clock.
//
// Returns the weight of a sample taken at `now`, `advance` after the previous one (the clock's
// reading since then), and sets `now_offset` to the position inside the current stratum.
uint64_t sample_weight(ThreadState* ts, bool on_ticks, uint64_t now, uint64_t advance,
                       uint64_t& now_offset) {
  const uint64_t period = sampling_state().period_ns;
  ts->last_clock_ns = now;  // how far the thread got, should the process die
  const uint64_t since = now > ts->grid_origin_ns ? now - ts->grid_origin_ns : 0;
  const uint64_t stratum = since / period;
  now_offset = since % period;
  const uint64_t strata = stratum + 1 > ts->strata_sampled ? stratum + 1 - ts->strata_sampled : 0;
  ts->strata_sampled = stratum + 1;  // coverage: the strata reached, for both schemes
  if (on_ticks) return advance;
  return strata * period;
}

uint64_t next_random(ThreadState* ts) {
  uint64_t x = ts->rng_state;  // xorshift64*, one state per thread
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  ts->rng_state = x;
  return (x * 0x2545F4914F6CDD1DULL) >> 11;
}

// Time from now to the next sample's target: a uniformly random instant of the next stratum
// (now at `now_offset` inside the current one), or on tick clocks 0.5 to 1.5 periods from now.
uint64_t next_interval_ns(ThreadState* ts, bool on_ticks, uint64_t now_offset) {
  const uint64_t period = sampling_state().period_ns;
  const uint64_t r = next_random(ts) % period;
  const uint64_t ns = on_ticks ? period / 2 + r : period - now_offset + r;
  return ns ? ns : 1;  // a zero timer value would disarm
}

// The interrupted code's stack into `frames`: the pc alone where too little of the thread's
// stack is left to unwind.
CaptureResult capture_interrupted_stack(ThreadState* ts, void* ucontext, uint64_t* frames,
                                        void** scratch, bool short_stack) {
  if (short_stack) return capture_signal_pc(ucontext, frames);
  SectionScope in_handler(Section::kHandler);
  return capture_signal_stack(ucontext, scratch, frames, sampling_state().max_depth,
                              ts->trace_cache_warm);
}

uint16_t stack_flags(const CaptureResult& r) {
  return (r.truncated ? kStackTruncated : 0) | (r.unwind_failed ? kStackUnwindFailed : 0);
}

// The gap since `ts`'s previous sample, for a sample in `region` whose time is `time`.
SampleGap gap_of(const ThreadState* ts, uint64_t cpu_ns, SampleTime time, uint64_t region) {
  SampleGap gap;
  gap.now_mono_ns = ts->last_sample_mono_ns;
  gap.cpu_ns = cpu_ns;
  gap.measured_ns = measured_so_far_ns(ts, ts->last_sample_mono_ns);
  gap.known = measured_known();
  gap.time = time;
  gap.region = region;
  return gap;
}

// `cpu_ns`: the thread's CPU time since its previous sample, as its clock read it.
void take_sample(ThreadState* ts, uint64_t weight_ns, uint64_t cpu_ns, void* ucontext) {
  if (current_section() == Section::kUnwinding) {
    // The thread is unwinding itself (OpenMP fork callback) and libunwind is not reentrant:
    // hand the sample to that code, which records it with the stack it is capturing.
    read_context(ts, ts->deferred.ctx);
    // Its time off the CPU goes to the thread's next sample (recorded here, the carry).
    OffCpuTrail& trail = ts->off_cpu_trail;
    const OffCpuSeen seen = off_cpu_seen(
        trail, gap_of(ts, cpu_ns, SampleTime::kOwnOffCpuKnown, ts->deferred.ctx.fork_id));
    if (seen.previous_ns) ts->table.add_off_cpu_seen(trail.previous_slot, seen.previous_ns);
    trail.previous_slot = kNoSeenSlot;
    add_to_interval(ts->intervals, ts->last_sample_mono_ns, timeline_class_of(ts, ts->deferred.ctx),
                    weight_ns, ts->deferred.ctx);
    ts->deferred.weight_ns += weight_ns;
    ts->deferred.count += 1;  // last: the reader checks it before and after
    return;
  }
  // A thread's first samples are unwound step by step: most short-lived threads never need
  // libunwind's per-thread trace cache, which costs more to create than those samples.
  if (!ts->trace_cache_warm && ++ts->samples_unwound > kSamplesBeforeTraceCache)
    ts->trace_cache_warm = true;
  // Read once: another process may truncate the journal under the thread's state at any moment,
  // and its fields then read as zero (journal_writer.cc): a pointer read again could be null.
  uint64_t* const frames = ts->frames;
  void** const scratch = ts->scratch;
  if (!frames || !scratch) return;  // the state's page was lost (thread_states_lost)
  const bool short_stack = stack_is_short(ts);
  const CaptureResult r = capture_interrupted_stack(ts, ucontext, frames, scratch, short_stack);
  if (short_stack) ts->short_stack_samples += 1;
  SampleContext ctx;
  read_context(ts, ctx);
  const uint16_t flags = stack_flags(r);
  uint64_t counters[journal::kMaxCounters] = {};
  const bool counted = read_counter_deltas(ts, counters);
  const SampleTime time = sample_time(ctx.omp_state);
  OffCpuTrail& trail = ts->off_cpu_trail;
  const OffCpuSeen seen = off_cpu_seen(trail, gap_of(ts, cpu_ns, time, ctx.fork_id));
  if (seen.previous_ns) ts->table.add_off_cpu_seen(trail.previous_slot, seen.previous_ns);
  uint32_t slot = kNoSlot;
  const bool kept =
      ts->table.add(frames, r.depth, flags, ctx, 1, weight_ns, 0, idle_blame_ns(ts, weight_ns),
                    seen.this_ns, counted ? counters : nullptr, &slot);
  trail.previous_slot = kept && time == SampleTime::kTakesOffCpu ? slot : kNoSeenSlot;
  trail.previous_region = ctx.fork_id;
  add_to_interval(ts->intervals, ts->last_sample_mono_ns, timeline_class_of(ts, ctx), weight_ns,
                  ctx, counted ? counters : nullptr, kept ? slot : kNoSlot);
  if (r.truncated) ts->truncated_samples += 1;
  if (r.unwind_failed) ts->unwind_failed += 1;
}

// An overflow of the sampled counter event: its stack and context get the period's events (no
// time: the sampling clock's samples hold the time). Not while the thread unwinds itself
// (libunwind is not reentrant): counted as lost, the events stay in the thread's totals.
void take_counter_sample(ThreadState* ts, void* ucontext) {
  if (current_section() == Section::kUnwinding) {
    ts->counter_samples_lost += 1;
    return;
  }
  uint64_t* const frames = ts->frames;  // read once, as in take_sample
  void** const scratch = ts->scratch;
  if (!frames || !scratch) return;
  const CaptureResult r =
      capture_interrupted_stack(ts, ucontext, frames, scratch, stack_is_short(ts));
  SampleContext ctx;
  read_context(ts, ctx);
  uint64_t counters[journal::kMaxCounters] = {ts->counter_sample_period};
  ts->table.add(frames, r.depth, stack_flags(r), ctx, 0, 0, 0, 0, 0, counters);
}

// `clock`: the thread's, read once by the caller (as frames in take_sample).
void sample_and_rearm(ThreadState* ts, const SamplingClock* clock, void* ucontext) {
  SamplingState& st = sampling_state();
  uint64_t now_offset = 0;
  const uint64_t now = clock->now_ns();  // a system call for the thread CPU clock
  // The clock's advance since the previous sample: the thread's CPU time (CPU clocks).
  const uint64_t cpu_ns = now > ts->last_clock_ns ? now - ts->last_clock_ns : 0;
  const uint64_t weight_ns = sample_weight(ts, clock->on_ticks, now, cpu_ns, now_offset);
  ts->last_sample_mono_ns = monotonic_ns();  // how long the process ran, should it die
  if (st.time_handler) {
    const uint64_t t0 = monotonic_ns();
    take_sample(ts, weight_ns, cpu_ns, ucontext);
    st.handler_ns.fetch_add(monotonic_ns() - t0, std::memory_order_relaxed);
    st.handler_calls.fetch_add(1, std::memory_order_relaxed);
  } else {
    take_sample(ts, weight_ns, cpu_ns, ucontext);
  }
  // Clocks are one-shot with a fresh random interval each time. Shutdown sets `stopped` and
  // waits for handlers in flight before it disarms clocks, so none is re-armed after.
  if (ts->timer_armed.load()) {
    const uint64_t next_ns = next_interval_ns(ts, clock->on_ticks, now_offset);
    if (!leave_clock_if_switching(ts, now, next_ns)) clock->rearm(ts, next_ns);
  }
  // A sampled counter's overflow signal may have been merged with this one: one more overflow
  // allowed keeps its group counting (handler/counter_read.h).
  if (ts->counter_sample_period && ts->counter_fd >= 0) rearm_counter_sampling(ts);
}

}  // namespace

namespace {

void revive_after_merge(ThreadState* ts, const SamplingClock* clock) {
  if (!ts || !clock || !clock->revive) return;
  SamplingState& st = sampling_state();
  st.handlers_in_flight.fetch_add(1);
  if (!st.stopped.load() && ts->timer_armed.load()) clock->revive(ts);
  st.handlers_in_flight.fetch_sub(1);
}

}  // namespace

void on_profiling_signal(int signo, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  ThreadState* ts = current_thread();
  const SamplingClock* clock = ts ? ts->clock : nullptr;
  if (info && clock && clock->owns_signal(ts, info)) {
    SamplingState& st = sampling_state();
    st.handlers_in_flight.fetch_add(1);
    if (!st.stopped.load()) sample_and_rearm(ts, clock, ucontext);
    st.handlers_in_flight.fetch_sub(1);
  } else if (info && ts && owns_counter_signal(ts, info)) {
    SamplingState& st = sampling_state();
    st.handlers_in_flight.fetch_add(1);
    if (!st.stopped.load() && ts->counter_fd >= 0) {  // else closed: a late signal, ignored
      take_counter_sample(ts, ucontext);
      rearm_counter_sampling(ts);
      // The sampling clock's signal may have been merged with this one.
      if (clock && clock->revive && ts->timer_armed.load()) clock->revive(ts);
    }
    st.handlers_in_flight.fetch_sub(1);
  } else if (!(info && thread_states_lost() &&
               (info->si_code == SI_TIMER ||
                (info->si_code >= POLL_IN && info->si_code <= POLL_HUP)))) {
    // The program's own signal (its raise(SIGPROF), its ITIMER_PROF). A standard signal does
    // not queue: the task clock's overflow signal, pending at the same moment, was merged into
    // this one, and the clock stopped at that overflow. One more overflow allowed restarts it
    // (CI saw a program raising SIGPROF at its start get no sample at all).
    revive_after_merge(ts, clock);
    forward_to_application(signo, info, ucontext);
  }  // else a clock of omprof's whose thread state was lost: dropped, never the program's
  errno = saved_errno;
}

uint64_t first_interval_ns(ThreadState* ts) {
  if (!ts->clock->on_ticks)
    return next_interval_ns(ts, false, sampling_state().period_ns);  // stratum 0
  const uint64_t ns = next_random(ts) % sampling_state().period_ns;  // a random start
  return ns ? ns : 1;
}

void take_deferred_samples(ThreadState* ts, const uint64_t* frames, uint32_t depth,
                           bool truncated) {
  // The handler runs on this thread and completes before this code continues, so re-reading
  // the count tells whether one ran between the two reads.
  uint64_t count, weight;
  do {
    count = __atomic_load_n(&ts->deferred.count, __ATOMIC_RELAXED);
    weight = __atomic_load_n(&ts->deferred.weight_ns, __ATOMIC_RELAXED);
  } while (count != __atomic_load_n(&ts->deferred.count, __ATOMIC_RELAXED));
  if (!count) return;
  const SampleContext ctx = ts->deferred.ctx;
  // Single instructions: a signal cannot land between their load and store.
  __atomic_fetch_sub(&ts->deferred.count, count, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&ts->deferred.weight_ns, weight, __ATOMIC_RELAXED);
  ts->table.add(frames, depth, truncated ? kStackTruncated : 0, ctx, count, weight);
}

}  // namespace omprof::handler
