#include "collector/ompt/exact_waits.h"

#include <atomic>
#include <cstdlib>

#include "collector/handler/region_ends.h"
#include "collector/ompt/barrier_spans.h"
#include "collector/ompt/ompt_thread.h"
#include "collector/open_wait.h"
#include "collector/openmp/events.h"
#include "collector/openmp/open_waits.h"
#include "collector/openmp/thread_model.h"
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

// The team's shared facts, from the process's tables: barrier spans by registry index, region
// ends as the masters note them.
class ProcessTeam final : public openmp::TeamFacts {
 public:
  explicit ProcessTeam(uint32_t thread) : thread_(thread) {}
  uint64_t barrier_key(uint32_t instance, uint32_t number) const override {
    return barrier_spans::key(instance, number);
  }
  void publish_span(uint64_t key, uint64_t span_ns) override {
    barrier_spans::publish(key, thread_, span_ns);
  }
  uint64_t longest_span(uint64_t key, uint64_t own_span_ns) const override {
    return barrier_spans::longest(key, thread_count(), own_span_ns);
  }
  bool region_ended(uint32_t instance, uint64_t* end_ns) const override {
    return handler::region_ended(instance, end_ns);
  }
  uint64_t waking_fork(uint32_t instance, uint32_t thread_num, uint64_t* fork_id) const override {
    return handler::waking_fork_ns(instance, thread_num, fork_id);
  }

 private:
  uint32_t thread_;
};

// A wait's parts go to its thread's wait table and timeline.
class ThreadSink final : public openmp::WaitSink {
 public:
  explicit ThreadSink(ThreadState* ts) : ts_(ts) {}
  void record(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) override {
    openmp::count_wait(ts_, codeptr, ctx, ns);
  }
  void place(uint64_t end_ns, uint64_t ns, const SampleContext& ctx) override {
    openmp::place_wait(ts_, end_ns, ns, ctx);
  }

 private:
  ThreadState* ts_;
};

// The outermost open wait, for a live reader (collector/open_wait.h): published while the stack
// of open waits has one, withdrawn when it has none; and the wait running now, for the signal
// handler (handler/omp_published.h measured_open_since_ns).
void publish_outermost(ThreadState* ts, const openmp::OpenWaits& waits) {
  ts->omp.ompt.measured_open_since_ns = waits.running_since_ns();
  if (waits.depth() == 1)
    open_wait::begin(*ts, waits.outermost().ctx.omp_state, waits.outermost().first_start_ns);
  else if (waits.depth() == 0)
    open_wait::end(*ts);
}

// Before a wait's time so far goes to the thread's measured total (its end, a pause): a sample
// in between sees it in neither, rather than in both (the trail's carry settles either).
void withdraw_running(ThreadState* ts) {
  ts->omp.ompt.measured_open_since_ns = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

void begin_wait(ThreadState* ts, openmp::WaitStart& start, uint32_t state) {
  openmp::OpenWaits& waits = openmp::model(ts).waits;
  start.ctx.omp_state = state;
  ProcessTeam team(ts->index);
  if (!waits.begin(start, monotonic_ns(), team)) ++ts->open_waits_overflow;
  publish_outermost(ts, waits);
}

}  // namespace

void wait_begin_sync(ThreadState* ts, int sync_kind, uint64_t codeptr, const void* task,
                     const SampleContext& ctx, uint32_t region_instance, BarrierRole role) {
  openmp::WaitStart start;
  start.codeptr = codeptr;
  start.ctx = ctx;
  start.task = task;
  start.region_instance = region_instance;
  start.role = role;
  start.is_barrier = sync_kind != kSyncTaskwait && sync_kind != kSyncTaskgroup;
  begin_wait(ts, start, state_of_sync(sync_kind, role));
}

uint64_t wait_end_sync(ThreadState* ts) {
  openmp::OpenWaits& waits = openmp::model(ts).waits;
  // What closing the wait reads of its team (other threads wrote it: cache misses), asked for
  // at once rather than one after another.
  if (const openmp::OpenWait* w = waits.innermost()) {
    barrier_spans::prefetch(w->barrier_key);
    if (w->role == BarrierRole::kWorkerJoin) handler::prefetch_region_end(w->region_instance);
  }
  const uint64_t now = monotonic_ns();
  ThreadSink sink(ts);
  withdraw_running(ts);
  const openmp::EndedWait ended = waits.end(now, ProcessTeam(ts->index), sink);
  publish_outermost(ts, waits);
  if (!ended.closed) return 0;
  OmptThread& o = own(ts);
  if (ended.role == BarrierRole::kWorkerJoin) o.overhead_since_ns = now;  // woken: next region
  if (ended.role == BarrierRole::kMasterJoin) {                           // the join follows
    o.join_left_instance = ended.region_instance;
    o.join_left_ns = now;
  }
  return now;
}

void wait_begin_mutex(ThreadState* ts, int mutex_kind, uint64_t wait_id, uint64_t codeptr,
                      const SampleContext& ctx) {
  openmp::WaitStart start;
  start.codeptr = codeptr;
  start.ctx = ctx;
  start.is_mutex = true;
  start.wait_id = wait_id;
  begin_wait(ts, start, state_of_mutex(mutex_kind));
}

void wait_end_mutex(ThreadState* ts, uint64_t wait_id) {
  openmp::OpenWaits& waits = openmp::model(ts).waits;
  if (waits.depth() == 0) return;
  ThreadSink sink(ts);
  withdraw_running(ts);
  waits.end_mutex(wait_id, monotonic_ns(), ProcessTeam(ts->index), sink);
  publish_outermost(ts, waits);
}

void wait_task_switch(ThreadState* ts, const void* next_task) {
  openmp::OpenWaits& waits = openmp::model(ts).waits;
  // The clock is read only when the waiting task itself is switched out or back in: task
  // switches between other tasks (undeferred tasks inside a stolen one) cost no clock read.
  if (!waits.switch_moves_wait(next_task)) return;
  ThreadSink sink(ts);
  withdraw_running(ts);
  waits.task_switch(next_task, monotonic_ns(), sink);
  ts->omp.ompt.measured_open_since_ns = waits.running_since_ns();
}

void open_waits_so_far(const ThreadState* ts, uint64_t now_ns,
                       const std::function<void(const SampleContext&, uint64_t)>& emit) {
  const openmp::ThreadModel* m = openmp::existing_model(ts);  // another thread's: never made here
  if (!m) return;
  class Emit final : public openmp::WaitParts {
   public:
    explicit Emit(const std::function<void(const SampleContext&, uint64_t)>& f) : f_(f) {}
    void part(uint64_t, const SampleContext& ctx, uint64_t ns) override { f_(ctx, ns); }

   private:
    const std::function<void(const SampleContext&, uint64_t)>& f_;
  } parts(emit);
  m->waits.so_far(now_ns, ProcessTeam(ts->index), parts);
}

void close_open_waits(uint64_t now_ns) {
  for (uint32_t i = 0; i < thread_count(); ++i) {
    ThreadState* ts = thread_at(i);
    // Another thread's: never made here. Only the OMPT callbacks' threads (the libgomp adapter
    // closes its own: collector/libgomp/regions.cc close_open_joins).
    openmp::ThreadModel* m = ts ? openmp::existing_model(ts) : nullptr;
    if (!m || !existing(ts)) continue;
    // The threads are parked in the runtime at exit (or gone): their open waits are stable.
    ThreadSink sink(ts);
    m->waits.close_all(now_ns, ProcessTeam(ts->index), sink);
    ts->omp.ompt.measured_open_since_ns = 0;
    open_wait::end(*ts);
  }
}

}  // namespace omprof::ompt
