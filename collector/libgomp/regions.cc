// The libgomp adapter's regions: omprof's wrappers of GNU libgomp's entry points (gomp/), which
// has no OMPT, report each fork, member's begin and end of the body and join, translated here
// into the OpenMP event model's (collector/openmp/events.h); and each thread's end-of-region
// wait, measured off the CPU from the end of its body to the join or its next region. The
// waits and the tasks run inside them are waits.cc's, task creation task_creation.cc's; the
// helpers they share are declared in gomp_thread.h. Ordinary context (never in a signal
// handler).
#include <algorithm>
#include <atomic>

#include "collector/handler/barrier_arrivals.h"
#include "collector/handler/hot_flag.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/handler/thread_state.h"
#include "collector/libgomp/bridge.h"
#include "collector/libgomp/gomp_thread.h"
#include "collector/open_wait.h"
#include "collector/openmp/events.h"
#include "collector/openmp/join_close.h"
#include "collector/openmp/open_waits.h"
#include "collector/openmp/runtime_status.h"
#include "collector/openmp/wait_split.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/wait_context.h"
#include "omp/states.h"
#include "proto/state_codes.h"

namespace {

using omprof::SampleContext;
// The adapter's shared state and helpers (gomp_thread.h), by their names.
using namespace omprof::gomp;  // NOLINT(google-build-using-namespace)
using omprof::handler::ThreadState;
using omprof::openmp::off_cpu_ns;
namespace pv = omprof::handler::parallel_value;
namespace fmt = omprof::format;

omprof::handler::HotFlag g_attached;

// libgomp's teams are seen from the wrappers: each member's begin and end of the body, where
// the barriers are split (openmp/events.h).
constexpr omprof::openmp::BarrierTiming kArrivals = omprof::openmp::BarrierTiming::kArrivals;

void set_context(ThreadState* ts, uint64_t value, uint32_t state) {
  omprof::handler::publish_gomp_context(ts->omp.gomp, value, state);
}

// What the team's tables say, at `now`, of the region whose end-of-region wait the thread
// closes (and of the region it starts next: `next_instance`, when `has_next`).
omprof::openmp::JoinFacts join_facts(const ThreadState* ts, uint64_t now, bool has_next,
                                     uint32_t next_instance) {
  omprof::openmp::JoinFacts f;
  const uint32_t instance = pv::instance(ts->omp.gomp.parallel_value);
  uint64_t end = 0;
  f.region_ended =
      ts->omp.thread_num != 0 && omprof::handler::region_ended(instance, &end) && end < now;
  f.region_end_ns = end;
  f.next_fork_ns = has_next ? omprof::handler::region_fork_ns(next_instance) : 0;
  f.all_begun_ns = omprof::handler::all_members_begun_ns(instance, &f.all_begun_known);
  f.body_ns = ts->omp.gomp.body_ns;
  f.all_ended_ns = ts->omp.gomp.join_ran_task ? 0 : omprof::handler::all_members_ended_ns(instance);
  return f;
}

}  // namespace

namespace omprof::gomp {

void save(const ThreadState* ts, omprof_gomp_context* saved) {
  saved->parallel_value = ts->omp.gomp.parallel_value;
  saved->state = ts->omp.gomp.state;
  saved->thread_num = ts->omp.thread_num;
  saved->task_origin = ts->omp.task_origin;
  const GompThread* mine = existing(ts);
  saved->task_cut = mine ? mine->task_cut : 0;
}

void set_task(ThreadState* ts, uint32_t origin, uint64_t cut) {
  own(ts).task_cut = cut;
  omprof::handler::publish_running_task(ts->omp, origin, nullptr);
}

bool measures_off_cpu(ThreadState* ts, bool* counted) {
  GompThread& g = own(ts);
  const bool guarded = g.guard.measure_next();
  if (counted) *counted = guarded;
  if (guarded || g.cpu_clock.cheap()) return true;
  ++ts->unmeasured_waits;
  return false;
}

void note_measured(ThreadState* ts, uint64_t now, uint64_t off) {
  own(ts).guard.note_measured(now, off);
}

void record_join(ThreadState* ts, uint64_t now, uint64_t cpu_now, const SampleContext* next,
                 uint32_t next_instance) {
  const omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  const omprof::openmp::OpenWait* join = waits.join();
  if (!join || join->measure != omprof::openmp::Measure::kOffCpu) return;
  const omprof::openmp::JoinPiece span = waits.join_piece(now, cpu_now);
  note_measured(ts, now, span.recorded ? span.off_ns : 0);
  if (!span.recorded || !span.off_ns) return;
  const SampleContext& join_ctx = join->ctx;
  const omprof::openmp::JoinParts parts = omprof::openmp::split_join(
      span.off_ns, span.start_ns, now, join_facts(ts, now, next != nullptr, next_instance));
  if (parts.woken_ns && next) omprof::openmp::record_wait(ts, 0, *next, parts.woken_ns, now);
  SampleContext idle_ctx;
  idle_ctx.omp_state = fmt::kIdleDerived;
  if (parts.idle_ns)
    omprof::openmp::record_wait(ts, 0, idle_ctx, parts.idle_ns, now - parts.woken_ns);
  // At the barrier: the fork's overhead, the waiting, then the release's overhead, one after
  // another up to the barrier's end on the timeline; the overhead is one wait in the table.
  SampleContext overhead_ctx = join_ctx;
  overhead_ctx.omp_state = fmt::kOverhead;
  if (parts.overhead_ns) omprof::openmp::count_wait(ts, 0, overhead_ctx, parts.overhead_ns);
  if (parts.waiting_ns) omprof::openmp::count_wait(ts, 0, join_ctx, parts.waiting_ns);
  uint64_t end = parts.barrier_end_ns;
  omprof::openmp::place_wait(ts, end, parts.release_ns, overhead_ctx);
  end -= std::min(end, parts.release_ns);
  omprof::openmp::place_wait(ts, end, parts.waiting_ns, join_ctx);
  end -= std::min(end, parts.waiting_ns);
  omprof::openmp::place_wait(ts, end, parts.overhead_ns - parts.release_ns, overhead_ctx);
}

void close_join(ThreadState* ts, uint64_t now, const SampleContext* next, uint32_t next_instance) {
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  const omprof::openmp::OpenWait* join = waits.join();
  if (!join) return;
  if (join->measure == omprof::openmp::Measure::kOffCpu)
    record_join(ts, now, cpu_at(ts, now), next, next_instance);
  waits.close_join();
}

// The wrappers act only without OMPT: a libgomp entry point reached on libomp (which provides
// them too) is seen by the OMPT tool already.
ThreadState* tracked_thread() {
  if (!g_attached.relaxed() || omprof::openmp::ompt_ever()) return nullptr;
  return omprof::handler::current_thread();
}

SampleContext context_now(const ThreadState* ts, uint32_t state) {
  return omprof::wait_context(*ts, ts->omp.gomp.parallel_value, state);
}

// The calling thread's CPU time at `now` (clocks/switch_watch.h: a system call only after the
// thread was switched out).
uint64_t cpu_at(ThreadState* ts, uint64_t now) {
  return own(ts).cpu_clock.cpu_ns(now);
}

}  // namespace omprof::gomp

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

OMPROF_EXPORT int omprof_internal_gomp_attach(void) {
  if (!omprof::runtime().active.load()) return 0;
  g_attached.set();
  omprof::handler::set_gomp_inquiry();
  if (ThreadState* ts = omprof::handler::current_thread()) {
    ts->is_omp_thread = true;
    if (!ts->omp.gomp.thread) set_context(ts, 0, fmt::kWorkSerial);
  }
  omprof::openmp::note_gomp_wrappers();
  return 1;
}

OMPROF_EXPORT uint64_t omprof_internal_gomp_fork(const void* codeptr_ra, const void* enter_frame,
                                                 omprof_gomp_context* saved) {
  ThreadState* ts = tracked_thread();
  if (!ts) return 0;
  // A thread of the program's own that forks a region is an OpenMP initial thread.
  if (!ts->omp.gomp.thread) set_context(ts, 0, fmt::kWorkSerial);
  save(ts, saved);
  ts->is_omp_thread = true;
  const omprof::openmp::Forked f = omprof::openmp::fork(ts, codeptr_ra, enter_frame, 0, kArrivals);
  // From here to its own body the thread forks: waking the team (on a busy machine, waiting
  // for a CPU meanwhile). Its time off the CPU there is fork overhead (member_begin).
  GompThread& g = own(ts);
  g.fork_start_ns = 0;
  g.fork_cpu_ns = measures_off_cpu(ts) ? cpu_at(ts, f.now_ns) : 0;
  if (g.fork_cpu_ns) g.fork_start_ns = f.now_ns;
  return f.value;
}

OMPROF_EXPORT void omprof_internal_gomp_join(uint64_t value, const omprof_gomp_context* saved) {
  if (value == 0) return;
  ThreadState* ts = tracked_thread();
  // The master is in the join until its context is restored below. Its state says so before
  // the region's end is published: at the region-end barrier's state, a sample would read an
  // ended region as idle (omp_inquiry.cc), and closing the join may take system calls.
  if (ts) {
    ts->omp.gomp.state = fmt::kOverhead;
    std::atomic_signal_fence(std::memory_order_release);
  }
  const uint64_t now = omprof::monotonic_ns();
  omprof::openmp::join(ts, value, now);
  if (!ts) return;
  omprof::open_wait::end(*ts);
  close_join(ts, now, nullptr, 0);
  ts->omp.thread_num = saved->thread_num;
  set_task(ts, saved->task_origin, saved->task_cut);
  set_context(ts, saved->parallel_value, saved->state);
}

OMPROF_EXPORT void omprof_internal_gomp_member_begin(uint64_t value, unsigned thread_num,
                                                     unsigned team_size, const void* body_frame) {
  ThreadState* ts = tracked_thread();
  if (!ts || value == 0) return;
  const uint64_t now = omprof::monotonic_ns();
  omprof::open_wait::end(*ts);  // a worker's wait for this region is over
  GompThread& g = own(ts);
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  if (waits.join()) {
    // The woken worker's fork overhead, in the region it starts.
    const SampleContext next = omprof::openmp::fork_overhead_context(pv::fork_id(value), thread_num,
                                                                     omprof::current_region_node());
    close_join(ts, now, &next, pv::instance(value));
  }
  omprof::openmp::member_begin(ts, value, thread_num, team_size, 0, now, kArrivals);
  if (thread_num == 0 && g.fork_start_ns) {
    const uint64_t off = off_cpu_ns(g.fork_start_ns, g.fork_cpu_ns, now, cpu_at(ts, now));
    note_measured(ts, now, off);
    g.fork_start_ns = 0;
    if (off)
      omprof::openmp::record_wait(ts, 0,
                                  omprof::openmp::fork_overhead_context(
                                      pv::fork_id(value), 0, omprof::current_region_node()),
                                  off, now);
  }
  ts->omp.gomp.team_size = team_size;
  waits.region_began(now);
  ts->omp.gomp.barrier_tag = 0;
  g.body_start_ns = now;
  set_task(ts, 0, reinterpret_cast<uint64_t>(body_frame));
  set_context(ts, value, fmt::kWorkParallel);
}

OMPROF_EXPORT void omprof_internal_gomp_member_end(void) {
  ThreadState* ts = tracked_thread();
  if (!ts || ts->omp.gomp.parallel_value == 0) return;
  // A worker stays in this state through the team's end barrier and, once the region has
  // joined, while it idles for the next one (the handler tells them apart: region_ends.h).
  const uint64_t now = omprof::monotonic_ns();
  GompThread& g = own(ts);
  ts->omp.gomp.body_ns = now > g.body_start_ns ? now - g.body_start_ns : 0;
  ts->omp.gomp.join_ran_task = false;
  omprof::openmp::member_end(ts, pv::instance(ts->omp.gomp.parallel_value), now, kArrivals);
  ts->omp.gomp.state = fmt::kWaitBarrierImplicitParallel;
  // At the region's end until the join (the master) or the next region (a worker, idle then).
  omprof::open_wait::begin(*ts, fmt::kWaitBarrierImplicitParallel, now);
  using omprof::openmp::BarrierRole;
  using omprof::openmp::Measure;
  const BarrierRole role =
      ts->omp.thread_num == 0 ? BarrierRole::kMasterJoin : BarrierRole::kWorkerJoin;
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  const void* task = reinterpret_cast<const void*>(g.task_cut);  // the implicit task: run_body's
  if (measures_off_cpu(ts))
    waits.open_join(task, context_now(ts, fmt::kWaitBarrierImplicitParallel), role,
                    Measure::kOffCpu, now, cpu_at(ts, now));
  else
    waits.open_join(task, SampleContext{}, role, Measure::kNone, now, 0);
}

namespace omprof::gomp {

void close_open_joins(uint64_t now_ns) {
  if (!g_attached.acquire()) return;
  for (uint32_t i = 0; i < thread_count(); ++i) {
    ThreadState* ts = thread_at(i);
    // Another thread's: never made here. Parked in the runtime, outside any task.
    omprof::openmp::ThreadModel* m = ts ? omprof::openmp::existing_model(ts) : nullptr;
    const omprof::openmp::OpenWait* join = m ? m->waits.join() : nullptr;
    if (!join || !existing(ts)) continue;
    const uint64_t cpu =
        ts->end_ns.load() != 0 ? join->clock.cpu_start_ns : ts->cpu_ns_at_exit.load();
    record_join(ts, now_ns, cpu, nullptr, 0);
    m->waits.close_join();
  }
}

void thread_exits(ThreadState* ts) {
  if (GompThread* g = existing(ts)) g->cpu_clock.release();
}

}  // namespace omprof::gomp
