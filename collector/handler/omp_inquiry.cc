#include "collector/handler/omp_inquiry.h"

#include <atomic>

#include "collector/handler/barrier_arrivals.h"
#include "collector/handler/hot_flag.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/task_children.h"

namespace omprof::handler {

namespace {

std::atomic<ompt_get_state_t> g_get_state{nullptr};
std::atomic<ompt_get_thread_data_t> g_get_thread_data{nullptr};
std::atomic<ompt_get_parallel_info_t> g_get_parallel_info{nullptr};
HotFlag g_gomp;

}  // namespace

void set_ompt_inquiry(ompt_get_state_t get_state, ompt_get_thread_data_t get_thread_data,
                      ompt_get_parallel_info_t get_parallel_info) {
  g_get_thread_data.store(get_thread_data);
  g_get_parallel_info.store(get_parallel_info);
  g_get_state.store(get_state);  // last: read_omp_context checks it first
}

void clear_ompt_inquiry() {
  g_get_state.store(nullptr);
}

void set_gomp_inquiry() {
  g_gomp.set();
}

uint64_t innermost_parallel_value() {
  if (g_gomp.relaxed() && !g_get_state.load(std::memory_order_relaxed)) {
    const ThreadState* ts = current_thread();
    return ts ? ts->omp.gomp.parallel_value : 0;
  }
  const ompt_get_parallel_info_t info = g_get_parallel_info.load(std::memory_order_relaxed);
  ompt_data_t* pd = nullptr;
  int size = 0;
  if (info && info(0, &pd, &size) == 2 && plausible_pointer(pd)) return pd->value;
  return 0;
}

// Whether the thread is in a taskwait (or taskgroup wait) that waits: the waiting task is the
// one the thread runs (not another task run meanwhile) and it still has deferred children to
// complete. The viewer then tells waiting from running a task by the stack (runtime code at
// the leaf: waiting). A taskwait with nothing left to wait for is the runtime's bookkeeping, as
// is the runtime code of a task run inside another task's wait.
namespace {
bool taskwait_can_wait(const ThreadState* ts) {
  const int depth = ts->omp.ompt.taskwait_depth;
  if (depth > kMaxTaskwaitBrackets) return true;  // not recorded: as before brackets were kept
  const TaskwaitBracket& b = ts->omp.ompt.taskwait_brackets[depth - 1];
  if (!b.task) return true;
  if (ts->omp.ompt.current_task != b.task) return false;
  return b.group || task_children::outstanding(static_cast<const uint64_t*>(b.task)) > 0;
}
}  // namespace

uint32_t running_task_origin(const ThreadState* ts) {
  if (ts->omp.gomp.thread) return ts->omp.task_origin;  // libgomp: set by omprof's trampoline
  const ompt_frame_t* frame = ts->omp.ompt.task_frame;
  std::atomic_signal_fence(std::memory_order_acquire);
  if (!frame || !plausible_pointer(frame) || !frame->exit_frame.ptr) return 0;
  return ts->omp.task_origin;
}

namespace {
// A member at its region's end barrier waits for another thread's work (the team's imbalance)
// once every member has started the body and been in it longer than this member's own body
// lasted; before, it waits for the fork to complete: the runtime's overhead, as the barrier
// spans of collector/ompt/barrier_spans.h tell on libomp. Once every body has ended, the wait
// is the barrier's own synchronization and the join (join_in_progress), unless the thread ran
// tasks there (the runtime runs queued tasks at that barrier): then it stays waiting, as on
// libomp.
bool fork_not_done(const ThreadState* ts, uint32_t instance, uint64_t now) {
  bool known = false;
  const uint64_t all_begun = all_members_begun_ns(instance, &known);
  if (!known) return false;
  return all_begun == 0 || now < all_begun + ts->omp.gomp.body_ns;
}

bool join_in_progress(const ThreadState* ts, uint32_t instance, uint64_t now) {
  if (ts->omp.gomp.join_ran_task) return false;
  const uint64_t all_ended = all_members_ended_ns(instance);
  return all_ended != 0 && now >= all_ended;
}

// A member at a team barrier (explicit, worksharing) after every member has arrived: the
// barrier's own synchronization (barrier_arrivals.h), unless it ran a task there.
bool barrier_released(const ThreadState* ts, uint32_t state) {
  if (state == format::kWaitBarrierImplicitParallel || state < format::kWaitBarrier ||
      state > format::kWaitBarrierTeams)
    return false;
  return ts->omp.gomp.barrier_tag && !ts->omp.gomp.barrier_ran_task &&
         barrier_arrivals::all_arrived(ts->omp.gomp.barrier_tag, ts->omp.gomp.team_size);
}

// A worker whose region (`instance`) has ended is woken for its team's next region (libgomp
// reuses the team) from the moment its master forks that region (region_ends.h: the same
// rule as the exact waits' woken split on libomp) until it starts it; idle before, and idle
// once every member of the next team has started without it (a smaller team).
bool being_woken(uint32_t instance, uint32_t thread_num) {
  uint64_t fork_id = 0;
  uint32_t next = 0;
  if (waking_fork_ns(instance, thread_num, &fork_id, &next) == 0) return false;
  bool known = false;
  return all_members_begun_ns(next, &known) == 0 && known;
}

// From the libgomp wrappers' record (set_gomp_inquiry): the state, or false for a thread they
// never saw.
bool read_gomp_state(const ThreadState* ts, uint32_t& state, uint64_t& region) {
  if (!g_gomp.relaxed() || !ts) return false;
  if (!ts->omp.gomp.thread) {
    state = format::kWorkSerial;  // the initial thread before its first region
    return ts->is_main;
  }
  state = ts->omp.gomp.state;
  std::atomic_signal_fence(std::memory_order_acquire);
  region = ts->omp.gomp.parallel_value;
  // libgomp gives no count of a taskwait's outstanding children (OMPT mode: taskwait_can_wait).
  // A taskwait's first sample is taken as its bookkeeping (a program of fine-grained tasks makes
  // millions of taskwaits, almost all with nothing to wait for), later ones as waiting: a long
  // taskwait loses at most one sample to overhead.
  if (state == format::kInTaskwait && ts->strata_sampled <= ts->omp.gomp.taskwait_strata)
    state = format::kWorkParallel;
  // At the region's end barrier: before every member has started the body, the fork; after
  // every member has ended it, the join; once the region has ended, idle unless being woken.
  // The ring tells which, read once; the clock only while the region runs.
  if (state == format::kWaitBarrierImplicitParallel) {
    const uint32_t instance = parallel_value::instance(region);
    if (region_ended(instance)) {
      if (being_woken(instance, ts->omp.thread_num)) state = format::kOverhead;
    } else {
      const uint64_t now = monotonic_ns();
      if (fork_not_done(ts, instance, now) || join_in_progress(ts, instance, now))
        state = format::kOverhead;
    }
  }
  if (barrier_released(ts, state)) state = format::kOverheadBarrier;
  return true;
}
}  // namespace

void read_omp_context(const ThreadState* ts, SampleContext& ctx) {
  using namespace format;
  const ompt_get_state_t get_state = g_get_state.load(std::memory_order_relaxed);
  uint32_t state = 0;
  uint64_t region = 0;
  if (get_state && g_get_thread_data.load(std::memory_order_relaxed)() != nullptr) {
    ompt_wait_id_t wait_id = 0;
    state = uint32_t(get_state(&wait_id));
    region = innermost_parallel_value();
  } else if (!read_gomp_state(ts, state, region)) {
    ctx.omp_state = kNotOpenMP;  // no OMPT, or a thread the runtime does not know
    return;
  }
  ctx.omp_state = state;
  const bool waiting_for_work =
      state == kWaitBarrierImplicit || state == kWaitBarrierImplicitParallel || state == kIdle;
  if (waiting_for_work && (region == 0 || region_ended(parallel_value::instance(region)))) {
    // Between regions (libomp 14 reports the join barrier's state there): idle, in no region.
    ctx.omp_state = kIdleDerived;
    return;
  }
  ctx.fork_id = parallel_value::fork_id(region);
  if (ctx.fork_id) ctx.omp_thread_num = ts->omp.thread_num;
  ctx.task_origin = running_task_origin(ts);
  if (state == kWorkParallel && ts->omp.ompt.taskwait_depth > 0 && taskwait_can_wait(ts)) {
    ctx.omp_state = kInTaskwait;
    // The waiting task runs here (taskwait_can_wait): its record, where the thread's running
    // task is not known (libomp 14 around untied tasks).
    if (!ctx.task_origin && ts->omp.ompt.taskwait_depth <= kMaxTaskwaitBrackets)
      ctx.task_origin = ts->omp.ompt.taskwait_brackets[ts->omp.ompt.taskwait_depth - 1].origin;
  }
}

}  // namespace omprof::handler
