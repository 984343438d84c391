#include "collector/openmp/open_waits.h"

#include <algorithm>

#include "collector/openmp/wait_split.h"
#include "proto/state_codes.h"

namespace omprof::openmp {

namespace {

// The time a wait has run so far (it does not run while its thread runs other tasks).
uint64_t waited_ns(const OpenWait& w, uint64_t now_ns) {
  return w.done_ns + (w.start_ns && now_ns > w.start_ns ? now_ns - w.start_ns : 0);
}

// A barrier's `ns` of wait: waiting for as long as the team's longest span exceeds this
// thread's, the runtime's synchronization beyond: the join's for the region-end barrier, the
// barrier's own otherwise.
void emit_barrier(const OpenWait& w, uint64_t ns, const TeamFacts& team, WaitParts& parts) {
  if (!w.barrier_key || w.ran_tasks) {
    parts.part(w.codeptr, w.ctx, ns);
    return;
  }
  const BarrierSplit split =
      split_by_longest_span(ns, w.span_ns, team.longest_span(w.barrier_key, w.span_ns));
  if (split.waiting_ns) parts.part(w.codeptr, w.ctx, split.waiting_ns);
  if (split.sync_ns) {
    SampleContext sync = w.ctx;
    const bool join = w.role == BarrierRole::kWorkerJoin ||
                      w.ctx.omp_state == format::kWaitBarrierImplicitParallel ||
                      w.ctx.omp_state == format::kWaitBarrierImplicit;
    sync.omp_state = join ? format::kOverhead : format::kOverheadBarrier;
    parts.part(w.codeptr, sync, split.sync_ns);
  }
}

// The parts go to the wait table, and to the timeline, which already has the wait's pieces before
// the tasks it ran (task_switch): it gets only the rest, which ran without a break up to `now`.
class ClosingParts final : public WaitParts {
 public:
  ClosingParts(const OpenWait& w, uint64_t now_ns, WaitSink& sink)
      : now_(now_ns),
        at_(now_ns - std::min(now_ns, waited_ns(w, now_ns))),
        placed_(w.placed_ns),
        sink_(sink) {}
  void part(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) override {
    at_ += ns;
    sink_.record(codeptr, ctx, ns);
    const uint64_t before = std::min(placed_, ns);
    placed_ -= before;
    if (ns > before) sink_.place(std::min(at_, now_), ns - before, ctx);
  }

 private:
  uint64_t now_, at_, placed_;
  WaitSink& sink_;
};

}  // namespace

void split_open_wait(const OpenWait& w, uint64_t now_ns, const TeamFacts& team, WaitParts& parts) {
  const uint64_t total = waited_ns(w, now_ns);
  if (w.role != BarrierRole::kWorkerJoin) {
    if (w.barrier_key)
      emit_barrier(w, total, team, parts);
    else
      parts.part(w.codeptr, w.ctx, total);
    return;
  }
  // A worker's join wait: at the barrier until the region ended, idle after (in no region). A
  // worker looks its region's end up when its wait ends: at its team's next fork at the latest.
  uint64_t end = 0;
  const bool ended = team.region_ended(w.region_instance, &end);
  const JoinSplit split = split_worker_join(total, w.first_start_ns, ended, end);
  if (split.barrier_ns) emit_barrier(w, split.barrier_ns, team, parts);
  if (!split.idle_ns) return;
  // Idle until the fork that wakes the worker, then woken for that region: its fork overhead
  // (a worker preempted or asleep is woken late on a busy machine; that is not idle time).
  uint64_t fork_id = 0;
  const uint64_t fork_ns = team.waking_fork(w.region_instance, w.ctx.omp_thread_num, &fork_id);
  const AfterRegionEnd after = split_after_region_end(split.idle_ns, end, now_ns, fork_ns);
  SampleContext idle{};
  idle.omp_state = format::kIdleDerived;
  if (after.idle_ns + after.rest_ns) parts.part(0, idle, after.idle_ns + after.rest_ns);
  if (after.woken_ns) {
    parts.part(0, fork_overhead_context(fork_id, w.ctx.omp_thread_num, w.ctx.region_node),
               after.woken_ns);
  }
}

void OpenWaits::region_began(uint64_t now_ns) {
  sync_point_ns_ = now_ns;
  barrier_number_ = 0;
}

// A mutex wait never contains another wait; one still open was a test_lock that failed (no
// "acquired" event follows): it waited for nothing.
void OpenWaits::drop_failed_test_lock() {
  if (depth_ > 0 && waits_[depth_ - 1].is_mutex) --depth_;
}

bool OpenWaits::begin(const WaitStart& start, uint64_t now_ns, TeamFacts& team) {
  drop_failed_test_lock();
  if (depth_ >= kMaxOpenWaits) return false;
  // Field by field, only those an exact wait uses: clearing the whole entry took a string
  // store on every wait.
  OpenWait& w = waits_[depth_];
  w.measure = Measure::kInterval;
  w.start_ns = w.first_start_ns = now_ns;
  w.done_ns = w.placed_ns = 0;
  w.codeptr = start.codeptr;
  w.ctx = start.ctx;
  w.task = start.task;
  w.region_instance = start.region_instance;
  w.role = start.role;
  w.is_mutex = start.is_mutex;
  w.wait_id = start.wait_id;
  w.barrier_key = w.span_ns = 0;
  w.ran_tasks = false;
  if (start.is_barrier && sync_point_ns_ && now_ns >= sync_point_ns_) {
    w.barrier_key = team.barrier_key(start.region_instance, number_barrier());
    w.span_ns = now_ns - sync_point_ns_;
    if (w.barrier_key) team.publish_span(w.barrier_key, w.span_ns);
  }
  ++depth_;  // last: complete before another thread may look at it
  return true;
}

void OpenWaits::close(const OpenWait& w, uint64_t now_ns, const TeamFacts& team,
                      WaitSink& sink) const {
  ClosingParts parts(w, now_ns, sink);
  split_open_wait(w, now_ns, team, parts);
}

EndedWait OpenWaits::end(uint64_t now_ns, const TeamFacts& team, WaitSink& sink) {
  drop_failed_test_lock();
  if (depth_ == 0) return {};
  const OpenWait& w = waits_[depth_ - 1];
  // Departed from a barrier: the next span starts here (a worker's join ends in the next region).
  if (w.barrier_key && w.role != BarrierRole::kWorkerJoin) sync_point_ns_ = now_ns;
  close(w, now_ns, team, sink);
  --depth_;
  return {true, w.role, w.region_instance};
}

bool OpenWaits::end_mutex(uint64_t wait_id, uint64_t now_ns, const TeamFacts& team,
                          WaitSink& sink) {
  if (depth_ == 0) return false;
  const OpenWait& w = waits_[depth_ - 1];
  if (!w.is_mutex || w.wait_id != wait_id) return false;
  close(w, now_ns, team, sink);
  --depth_;
  return true;
}

// libomp 14 names an untied task resumed from a barrier as the prior one: BOTS
// sparselu_single's untied producer counted the whole region as barrier wait on the thread that
// ran it while the prior task's word decided.
bool OpenWaits::switch_moves_wait(const void* next_task) const {
  if (depth_ == 0) return false;
  const OpenWait& w = waits_[depth_ - 1];
  const bool paused = w.measure == Measure::kInterval ? w.start_ns == 0 : w.clock.paused;
  if (paused) return next_task == w.task;
  const bool pausable = w.measure == Measure::kInterval
                            ? !w.is_mutex
                            : w.measure == Measure::kOffCpu && (recorded(w) || is_clocked_join(w));
  return pausable && next_task != w.task;
}

void OpenWaits::task_switch(const void* next_task, uint64_t now_ns, WaitSink& sink) {
  if (!switch_moves_wait(next_task)) return;
  OpenWait& w = waits_[depth_ - 1];
  if (!w.start_ns) {
    w.start_ns = now_ns;  // back to the waiting task
    return;
  }
  // Its thread runs another task: work. The piece of the wait before it goes on the timeline
  // now, where it was, in the wait's own class (a wait that ran tasks is not split).
  const uint64_t piece = now_ns > w.start_ns ? now_ns - w.start_ns : 0;
  w.done_ns += piece;
  sink.place(now_ns, piece, w.ctx);
  w.placed_ns += piece;
  w.start_ns = 0;
  w.ran_tasks = true;
}

OpenWait* OpenWaits::begin_clocked(const void* task, uint64_t codeptr, uint32_t state, Measure how,
                                   uint64_t now_ns, uint64_t cpu_ns) {
  ++epoch_;  // pushed or not: the waits around it are not recorded from now on
  if (depth_ >= kMaxOpenWaits) return nullptr;
  // Only the fields a clocked wait uses (the exact ones' stay as they were: never read).
  OpenWait& w = waits_[depth_];
  w.measure = how;
  w.first_start_ns = now_ns;
  w.codeptr = codeptr;
  w.task = task;
  w.ctx.omp_state = state;
  w.barrier_key = 0;
  w.role = BarrierRole::kOther;
  w.ran_tasks = false;
  w.clock = WaitClock{now_ns, cpu_ns, epoch_};
  w.clock_marked = false;
  w.switch_seq = 0;
  ++depth_;
  return &w;
}

void OpenWaits::pause_clocked() {
  if (OpenWait* w = innermost()) w->clock.paused = true;
}

void OpenWaits::resume_clocked(uint64_t now_ns, uint64_t cpu_ns, bool run_delay_known,
                               uint64_t run_delay_ns) {
  OpenWait* w = innermost();
  if (w == nullptr) return;
  WaitClock& c = w->clock;
  c.paused = false;
  if (c.epoch != epoch_ && !is_clocked_join(*w)) {
    if (!run_delay_known) return;  // not recorded from now on
    c.sleep_only = true;
  }
  c.epoch = epoch_;
  c.start_ns = now_ns;
  c.cpu_start_ns = cpu_ns;
  c.run_delay_start_ns = run_delay_ns;
}

void OpenWaits::open_join(const void* task, const SampleContext& ctx, BarrierRole role, Measure how,
                          uint64_t now_ns, uint64_t cpu_ns) {
  if (depth_ >= kMaxOpenWaits) return;
  OpenWait& w = waits_[depth_];
  w.measure = how;
  w.first_start_ns = now_ns;
  w.codeptr = 0;
  w.task = task;
  w.ctx = ctx;
  w.barrier_key = 0;
  w.role = role;
  w.ran_tasks = false;
  w.clock = WaitClock{now_ns, how == Measure::kOffCpu ? cpu_ns : 0, epoch_};
  w.clock_marked = false;
  w.switch_seq = 0;
  ++depth_;
}

const OpenWait* OpenWaits::join() const {
  const OpenWait* w = innermost();
  return w && is_clocked_join(*w) && !w->clock.paused ? w : nullptr;
}

JoinPiece OpenWaits::join_piece(uint64_t now_ns, uint64_t cpu_ns) const {
  const OpenWait* w = join();
  if (!w || w->measure != Measure::kOffCpu) return {};
  return {w->clock.start_ns, off_cpu_ns(w->clock.start_ns, w->clock.cpu_start_ns, now_ns, cpu_ns),
          recorded(*w)};
}

void OpenWaits::close_all(uint64_t now_ns, const TeamFacts& team, WaitSink& sink) {
  for (int d = depth_; d-- > 0;)
    if (waits_[d].measure == Measure::kInterval) close(waits_[d], now_ns, team, sink);
  depth_ = 0;
}

void OpenWaits::so_far(uint64_t now_ns, const TeamFacts& team, WaitParts& parts) const {
  const int depth = depth_;
  for (int d = 0; d < depth && d < kMaxOpenWaits; ++d)
    if (waits_[d].measure == Measure::kInterval) split_open_wait(waits_[d], now_ns, team, parts);
}

}  // namespace omprof::openmp
