#include "collector/ompt/exact_waits.h"

#include <algorithm>
#include <cstdlib>

#include "collector/handler/intervals.h"
#include "collector/handler/region_ends.h"
#include "collector/ompt/barrier_spans.h"
#include "collector/ompt/ompt_thread.h"
#include "collector/open_wait.h"
#include "collector/openmp/wait_split.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "proto/state_codes.h"

namespace omprof::ompt {

namespace {

// OMPT numbering (omp-tools.h).
constexpr int kSyncBarrier = 1, kSyncBarrierImplicit = 2, kSyncBarrierExplicit = 3,
              kSyncBarrierImplementation = 4, kSyncTaskwait = 5, kSyncTaskgroup = 6,
              kSyncReduction = 7, kSyncBarrierImplicitWorkshare = 8,
              kSyncBarrierImplicitParallel = 9, kSyncBarrierTeams = 10;
constexpr int kMutexCritical = 5, kMutexAtomic = 6, kMutexOrdered = 7;

uint32_t state_of_sync(int kind, BarrierRole role) {
  if (role == BarrierRole::kWorkerJoin)
    return format::kWaitBarrierImplicit;  // (the join); idle once the region ended
  switch (kind) {
    case kSyncBarrierExplicit:
      return format::kWaitBarrierExplicit;
    case kSyncBarrierImplicitWorkshare:
      return format::kWaitBarrierImplicitWorkshare;
    case kSyncBarrierImplicitParallel:
      return format::kWaitBarrierImplicitParallel;
    case kSyncBarrierImplicit:
      return format::kWaitBarrierImplicit;
    case kSyncBarrierImplementation:
      return format::kWaitBarrierImplementation;
    case kSyncBarrierTeams:
      return format::kWaitBarrierTeams;
    case kSyncTaskwait:
      return format::kWaitTaskwait;
    case kSyncTaskgroup:
      return format::kWaitTaskgroup;
    case kSyncBarrier:
    case kSyncReduction:
    default:
      return format::kWaitBarrier;
  }
}

uint32_t state_of_mutex(int kind) {
  switch (kind) {
    case kMutexCritical:
      return format::kWaitCritical;
    case kMutexAtomic:
      return format::kWaitAtomic;
    case kMutexOrdered:
      return format::kWaitOrdered;
    default:
      return format::kWaitLock;  // locks and nest locks (plain and test_)
  }
}

// A wait of `ns` that ended at `end_ns`: in the wait table, and on the timeline.
void record(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
            uint64_t end_ns) {
  ts->waits.add_site(codeptr, ctx, 1, ns);
  handler::add_measured_to_intervals(ts->measured, end_ns, ns, ctx);
}

// The time a wait has run so far (it does not run while its thread runs other tasks).
uint64_t waited_ns(const OpenWait& w, uint64_t now) {
  return w.done_ns + (w.start_ns && now > w.start_ns ? now - w.start_ns : 0);
}

bool is_barrier(int kind) {
  return kind != kSyncTaskwait && kind != kSyncTaskgroup;
}

// A barrier's `ns` of wait: waiting for as long as the team's longest span exceeds this
// thread's, the runtime's synchronization beyond (ompt/barrier_spans.h): the join's for the
// region-end barrier, the barrier's own otherwise.
template <typename Emit>
void emit_barrier(const OpenWait& w, uint64_t ns, Emit&& emit) {
  if (!w.barrier_key || w.ran_tasks) {
    emit(w.codeptr, w.ctx, ns);
    return;
  }
  const openmp::BarrierSplit split = openmp::split_by_longest_span(
      ns, w.span_ns, barrier_spans::longest(w.barrier_key, thread_count(), w.span_ns));
  if (split.waiting_ns) emit(w.codeptr, w.ctx, split.waiting_ns);
  if (split.sync_ns) {
    SampleContext sync = w.ctx;
    const bool join = w.role == BarrierRole::kWorkerJoin ||
                      w.ctx.omp_state == format::kWaitBarrierImplicitParallel ||
                      w.ctx.omp_state == format::kWaitBarrierImplicit;
    sync.omp_state = join ? format::kOverhead : format::kOverheadBarrier;
    emit(w.codeptr, sync, split.sync_ns);
  }
}

// What a wait amounts to if it ends `now`: one piece, or a worker's join wait in two; a barrier's
// in waiting and synchronization.
template <typename Emit>
void split_wait(const OpenWait& w, uint64_t now, Emit&& emit) {
  const uint64_t total = waited_ns(w, now);
  if (w.role != BarrierRole::kWorkerJoin) {
    if (w.barrier_key)
      emit_barrier(w, total, emit);
    else
      emit(w.codeptr, w.ctx, total);
    return;
  }
  // A worker's join wait: at the barrier until the region ended, idle after (in no region).
  // A worker looks its region up when its wait ends: at its team's next fork at the latest.
  uint64_t end = 0;
  const bool ended = handler::region_ended(w.region_instance, &end);
  const openmp::JoinSplit split = openmp::split_worker_join(total, w.first_start_ns, ended, end);
  if (split.barrier_ns) emit_barrier(w, split.barrier_ns, emit);
  if (split.idle_ns) {
    SampleContext idle{};
    idle.omp_state = format::kIdleDerived;
    emit(uint64_t(0), idle, split.idle_ns);
  }
}

// The parts come in the order they happened, and end at `now` together. The wait's pieces
// before the tasks it ran are on the timeline already, where they were (wait_task_switch): the
// timeline gets only the rest, which ran without a break up to `now`.
void close_wait(ThreadState* ts, const OpenWait& w, uint64_t now) {
  uint64_t at = now - std::min(now, waited_ns(w, now));
  uint64_t placed = w.placed_ns;
  split_wait(w, now, [&](uint64_t codeptr, const SampleContext& ctx, uint64_t ns) {
    at += ns;
    ts->waits.add_site(codeptr, ctx, 1, ns);
    const uint64_t before = std::min(placed, ns);
    placed -= before;
    if (ns > before)
      handler::add_measured_to_intervals(ts->measured, std::min(at, now), ns - before, ctx);
  });
}

// The outermost open wait, for a live reader (collector/open_wait.h): published when the stack
// of open waits gets its first, withdrawn when it loses its last.
void publish_outermost(ThreadState* ts, const OmptThread& o) {
  if (o.open_wait_depth == 1)
    open_wait::begin(*ts, o.open_waits[0].ctx.omp_state, o.open_waits[0].first_start_ns);
  else if (o.open_wait_depth == 0)
    open_wait::end(*ts);
}

// A mutex wait never contains another wait; one still open was a test_lock that failed (no
// "acquired" callback follows): it waited for nothing.
void drop_failed_test_lock(ThreadState* ts, OmptThread& o) {
  if (o.open_wait_depth > 0 && o.open_waits[o.open_wait_depth - 1].is_mutex) {
    --o.open_wait_depth;
    publish_outermost(ts, o);
  }
}

// Starts filling the next open wait (committed by ++open_wait_depth, last, so that shutdown
// never sees half of it); nullptr when the stack is full (counted).
OpenWait* begin_wait(ThreadState* ts, OmptThread& o, uint64_t codeptr, const SampleContext& ctx,
                     uint32_t state) {
  drop_failed_test_lock(ts, o);
  if (o.open_wait_depth >= kMaxOpenWaits) {
    ++ts->open_waits_overflow;
    return nullptr;
  }
  OpenWait* w = &o.open_waits[o.open_wait_depth];
  *w = OpenWait{};
  w->start_ns = w->first_start_ns = monotonic_ns();
  w->codeptr = codeptr;
  w->ctx = ctx;
  w->ctx.omp_state = state;
  return w;
}

}  // namespace

void wait_begin_sync(ThreadState* ts, int sync_kind, uint64_t codeptr, const void* task,
                     const SampleContext& ctx, uint32_t region_instance, BarrierRole role) {
  OmptThread& o = own(ts);
  OpenWait* w = begin_wait(ts, o, codeptr, ctx, state_of_sync(sync_kind, role));
  if (!w) return;
  w->task = task;
  w->region_instance = region_instance;
  w->role = role;
  if (is_barrier(sync_kind) && o.sync_point_ns && w->first_start_ns >= o.sync_point_ns) {
    w->barrier_key = barrier_spans::key(region_instance, ++o.barrier_number);
    w->span_ns = w->first_start_ns - o.sync_point_ns;
    barrier_spans::publish(w->barrier_key, ts->index, w->span_ns);
  }
  ++o.open_wait_depth;  // last: complete before shutdown may look at it
  publish_outermost(ts, o);
}

bool taskwait_exact() {
  // Read once (first taskwait, outside signal context); the setting is for comparisons
  // (bench/), the default is sampled.
  static const bool exact = [] {
    const char* v = std::getenv("OMPROF_EXACT_TASKWAIT");
    return v && *v == '1';
  }();
  return exact;
}

uint64_t wait_end_sync(ThreadState* ts) {
  OmptThread& o = own(ts);
  drop_failed_test_lock(ts, o);
  if (o.open_wait_depth == 0) return 0;  // its begin did not fit, or came before the tool
  const uint64_t now = monotonic_ns();
  const OpenWait& w = o.open_waits[o.open_wait_depth - 1];
  const bool worker_join = w.role == BarrierRole::kWorkerJoin;
  if (worker_join) o.overhead_since_ns = now;                // woken for the next region
  if (w.barrier_key && !worker_join) o.sync_point_ns = now;  // departed
  if (w.role == BarrierRole::kMasterJoin) {                  // the join follows
    o.join_left_instance = w.region_instance;
    o.join_left_ns = now;
  }
  close_wait(ts, w, now);
  --o.open_wait_depth;
  publish_outermost(ts, o);
  return now;
}

void wait_begin_mutex(ThreadState* ts, int mutex_kind, uint64_t wait_id, uint64_t codeptr,
                      const SampleContext& ctx) {
  OmptThread& o = own(ts);
  OpenWait* w = begin_wait(ts, o, codeptr, ctx, state_of_mutex(mutex_kind));
  if (!w) return;
  w->wait_id = wait_id;
  w->is_mutex = true;
  ++o.open_wait_depth;
  publish_outermost(ts, o);
}

void wait_end_mutex(ThreadState* ts, uint64_t wait_id) {
  OmptThread& o = own(ts);
  if (o.open_wait_depth == 0) return;
  OpenWait& w = o.open_waits[o.open_wait_depth - 1];
  if (!w.is_mutex || w.wait_id != wait_id) return;
  close_wait(ts, w, monotonic_ns());
  --o.open_wait_depth;
  publish_outermost(ts, o);
}

void wait_task_switch(ThreadState* ts, const void* next_task) {
  OmptThread& o = own(ts);
  if (o.open_wait_depth == 0) return;
  OpenWait& w = o.open_waits[o.open_wait_depth - 1];
  if (w.is_mutex) return;
  // The clock is read only when the waiting task itself is switched out or back in: task
  // switches between other tasks (undeferred tasks inside a stolen one) cost no clock read.
  // Switched out is "the wait runs and the next task is another", not the prior task's word:
  // libomp 14 gets that wrong when a thread back in its barrier resumes an untied task (it
  // names the untied task as the prior one; BOTS sparselu_single's untied producer counted the
  // whole region as barrier wait on the thread that ran it).
  if (w.start_ns && next_task != w.task) {
    // Its thread runs another task: work. The piece of the wait before it goes on the
    // timeline now, where it was, in the wait's own class (a wait that ran tasks is not split).
    const uint64_t now = monotonic_ns();
    const uint64_t piece = now > w.start_ns ? now - w.start_ns : 0;
    w.done_ns += piece;
    handler::add_measured_to_intervals(ts->measured, now, piece, w.ctx);
    w.placed_ns += piece;
    w.start_ns = 0;
    w.ran_tasks = true;
  } else if (!w.start_ns && next_task == w.task) {
    w.start_ns = monotonic_ns();  // back to the waiting task
  }
}

void record_wait(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                 uint64_t end_ns) {
  record(ts, codeptr, ctx, ns, end_ns);
}

void record_overhead(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                     uint64_t end_ns) {
  SampleContext c = ctx;
  c.omp_state = format::kOverhead;
  record(ts, codeptr, c, ns, end_ns);
}

void open_waits_so_far(const ThreadState* ts, uint64_t now_ns,
                       const std::function<void(const SampleContext&, uint64_t)>& emit) {
  const OmptThread* o = existing(ts);  // another thread's: never made here
  if (!o) return;
  const int depth = o->open_wait_depth;
  for (int d = 0; d < depth && d < kMaxOpenWaits; ++d)
    split_wait(o->open_waits[d], now_ns,
               [&](uint64_t, const SampleContext& ctx, uint64_t ns) { emit(ctx, ns); });
}

void close_open_waits(uint64_t now_ns) {
  for (uint32_t i = 0; i < thread_count(); ++i) {
    ThreadState* ts = thread_at(i);
    OmptThread* o = ts ? existing(ts) : nullptr;  // another thread's: never made here
    if (!o) continue;
    // The threads are parked in the runtime at exit (or gone): their open waits are stable.
    for (int d = o->open_wait_depth; d-- > 0;) close_wait(ts, o->open_waits[d], now_ns);
    o->open_wait_depth = 0;
    open_wait::end(*ts);
  }
}

}  // namespace omprof::ompt
