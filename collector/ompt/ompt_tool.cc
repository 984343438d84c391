// omprof as an OMPT tool (libomp): registration with the runtime and the callbacks it needs
// (thread begin, parallel begin and end, implicit tasks, sync-region waits, mutexes, task
// creation and switches), each a thin adapter onto omprof's OpenMP bookkeeping: fork records
// (fork_records.h), exact waits (exact_waits.h), fork-to-join walls (fork_walls.h) and the
// running task (running_tasks.h). In the profiled process, never in the signal handler; what
// the handler asks of OMPT is in handler/omp_inquiry.h.

#include <omp-tools.h>

#include <atomic>

#include "collector/handler/idle_workers.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/handler/task_children.h"
#include "collector/modules.h"
#include "collector/ompt/exact_waits.h"
#include "collector/ompt/ompt_thread.h"
#include "collector/ompt/running_tasks.h"
#include "collector/ompt/task_origins.h"
#include "collector/openmp/events.h"
#include "collector/openmp/fork_records.h"
#include "collector/openmp/member_counters.h"
#include "collector/openmp/runtime_status.h"
#include "collector/openmp/thread_model.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/wait_context.h"

namespace omprof::ompt {

namespace {

namespace pv = handler::parallel_value;

ompt_get_parallel_info_t g_get_parallel_info = nullptr;

// Inlined into each callback: a context returned through memory, its fields just written one
// by one, was read back with wide loads that waited for every older store to drain.
[[gnu::always_inline]] inline SampleContext wait_context(const ThreadState* ts,
                                                         const ompt_data_t* parallel_data);
uint64_t construct_address(const void* codeptr_ra);

// What omprof stored in a region's parallel_data (parallel_value.h), from the calling thread's
// copy when it has one: the master's from its fork, a member's from its implicit task's start.
// parallel_data lives in libomp's team structure, on a cache line the team's threads write at
// their barriers; reading it at the join cost the master a cache miss per region.
uint64_t value_of(const ThreadState* ts, const ompt_data_t* parallel_data) {
  const OmptThread* o = ts ? existing(ts) : nullptr;
  if (o && o->known_parallel == parallel_data) return o->known_parallel_value;
  return parallel_data->value;
}
void remember_value(ThreadState* ts, const ompt_data_t* parallel_data, uint64_t value) {
  if (!ts) return;
  OmptThread& o = own(ts);
  o.known_parallel = parallel_data;
  o.known_parallel_value = value;
}

void on_thread_begin(ompt_thread_t type, ompt_data_t* thread_data) {
  thread_data->value = 1;
  if (ThreadState* ts = current_thread()) {
    ts->is_omp_thread = true;
    if (type == ompt_thread_worker) handler::count_omp_worker(ts);
  }
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t* encountering_frame,
                       ompt_data_t* parallel_data, unsigned requested_parallelism, int,
                       const void* codeptr_ra) {
  const void* enter =
      encountering_frame && handler::plausible_pointer(encountering_frame->enter_frame.ptr)
          ? encountering_frame->enter_frame.ptr
          : nullptr;
  ThreadState* ts = current_thread();
  const openmp::Forked f =
      openmp::fork(ts, codeptr_ra, enter, requested_parallelism, openmp::BarrierTiming::kSpans);
  parallel_data->value = f.value;
  if (ts) {  // fork bookkeeping starts (omprof's own cost excluded)
    remember_value(ts, parallel_data, f.value);
    OmptThread& o = own(ts);
    o.overhead_since_ns = f.now_ns;
    o.overhead_codeptr = construct_address(codeptr_ra);
    o.forked_construct = o.overhead_codeptr;
  }
}

// Closes the fork or join bookkeeping interval that is in progress on this thread. Returns the
// time it read (0 if none was in progress).
uint64_t end_overhead(const ompt_data_t* parallel_data) {
  ThreadState* ts = current_thread();
  if (!ts) return 0;
  OmptThread& o = own(ts);
  if (!o.overhead_since_ns) return 0;
  const uint64_t now = monotonic_ns();
  if (now > o.overhead_since_ns)
    openmp::record_overhead(ts, o.overhead_codeptr, wait_context(ts, parallel_data),
                            now - o.overhead_since_ns, now);
  o.overhead_since_ns = 0;
  o.overhead_codeptr = 0;
  return now;
}

void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t*, int, const void*) {
  uint64_t now = end_overhead(parallel_data);  // the master's join bookkeeping
  if (!now) now = monotonic_ns();
  // Only omprof's own memory is written here: parallel_data shares its cache line with what
  // libomp's barriers spin on (region_ends.h).
  ThreadState* ts = current_thread();
  const uint64_t value = value_of(ts, parallel_data);
  // A serialized region (if(0), a nested team of one) has no end barrier: its body ends here.
  openmp::member_end(ts, pv::instance(value), now, openmp::BarrierTiming::kSpans);
  openmp::join(ts, value, now);
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t*,
                      unsigned actual_parallelism, unsigned index, int flags) {
  if (flags & ompt_task_initial) return;  // the initial task of a thread, not a team member
  if (endpoint == ompt_scope_end && index == 0) {
    if (ThreadState* ts = current_thread()) {
      // The master's join bookkeeping started when it left the region's end barrier (libomp
      // passes no parallel_data here: the region is the one this thread last knew).
      OmptThread& o = own(ts);
      const uint32_t instance = pv::instance(o.known_parallel_value);
      const bool left = instance && o.join_left_instance == instance && o.join_left_ns;
      o.overhead_since_ns = left ? o.join_left_ns : monotonic_ns();
      o.overhead_codeptr = 0;
      o.join_left_ns = 0;
    }
  }
  if (endpoint == ompt_scope_begin) {
    if (!parallel_data) return;
    const uint64_t value = parallel_data->value;  // read fresh: the region is new to this thread
    ThreadState* ts = current_thread();
    OmptThread* o = ts ? &own(ts) : nullptr;
    if (ts) {
      ts->omp.thread_num = index;
      remember_value(ts, parallel_data, value);
      o->running_depth = 0;  // the implicit task: no creation record
      if (ts->omp.task_origin || ts->omp.ompt.task_frame) set_running_task(ts, 0, nullptr);
    }
    const uint64_t now = end_overhead(parallel_data);  // fork, or a worker's since its wake-up
    if (ts)  // the region's first synchronization point (ompt/barrier_spans.h)
      openmp::model(ts).waits.region_began(now ? now : monotonic_ns());
    openmp::member_begin(ts, value, index, actual_parallelism,
                         o && index == 0 ? o->forked_construct : 0, now,
                         openmp::BarrierTiming::kSpans);
  }
}

// The context an exact wait is attributed to (collector/wait_context.h), in the region whose
// parallel_data the runtime named.
[[gnu::always_inline]] inline SampleContext wait_context(const ThreadState* ts,
                                                         const ompt_data_t* parallel_data) {
  const uint64_t value =
      handler::plausible_pointer(parallel_data) ? value_of(ts, parallel_data) : 0;
  return omprof::wait_context(*ts, value, 0);
}

uint64_t construct_address(const void* codeptr_ra) {
  return codeptr_ra ? reinterpret_cast<uint64_t>(codeptr_ra) - 1 : 0;
}

void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t* parallel_data, ompt_data_t* task_data,
                         const void* codeptr_ra) {
  ThreadState* ts = current_thread();
  if (!ts) return;
  if (kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup) {
    // The handler reads the innermost bracket at depth - 1: written before the depth grows,
    // left after it shrinks (the task may be freed once its wait ends).
    if (endpoint == ompt_scope_begin) {
      if (ts->omp.ompt.taskwait_depth < handler::kMaxTaskwaitBrackets) {
        auto& b = ts->omp.ompt.taskwait_brackets[ts->omp.ompt.taskwait_depth];
        b.task = task_data;
        b.group = kind == ompt_sync_region_taskgroup;
        b.origin = task_data && handler::task_children::linked(&task_data->value)
                       ? task_origins::find(task_data)
                       : 0;
      }
      ts->omp.ompt.current_task = task_data;  // the waiting task runs here, by definition
      std::atomic_signal_fence(std::memory_order_release);
      ++ts->omp.ompt.taskwait_depth;
    } else if (ts->omp.ompt.taskwait_depth > 0) {
      --ts->omp.ompt.taskwait_depth;
      std::atomic_signal_fence(std::memory_order_release);
      ts->omp.ompt.current_task = task_data;
    }
    // Sampled, not timed: a task-heavy program calls this twice per task (docs/semantics.md).
    if (!openmp::taskwait_exact()) return;
  }
  if (endpoint != ompt_scope_begin) {
    wait_end_sync(ts);
    return;
  }
  // A worker's wait at the end of its region has no code pointer (libomp 14): it lasts until
  // the next region wakes the worker, so its tail is idle. The master's carries the parallel
  // construct's (a worksharing construct's barrier carries its own).
  const bool region_end = kind == ompt_sync_region_barrier_implicit ||
                          kind == ompt_sync_region_barrier_implicit_parallel;
  BarrierRole role = BarrierRole::kOther;
  if (region_end && !codeptr_ra && ts->omp.thread_num != 0)
    role = BarrierRole::kWorkerJoin;
  else if (region_end && codeptr_ra && ts->omp.thread_num == 0 &&
           construct_address(codeptr_ra) == own(ts).forked_construct)
    role = BarrierRole::kMasterJoin;
  const uint32_t instance =
      handler::plausible_pointer(parallel_data) ? pv::instance(value_of(ts, parallel_data)) : 0;
  // The member's body ends at its region's end barrier.
  if (region_end && ts->omp_process.member_depth &&
      openmp::member_counts::ends_member(ts, instance, construct_address(codeptr_ra)))
    openmp::member_end(ts, instance, 0, openmp::BarrierTiming::kSpans);
  SampleContext ctx = wait_context(ts, parallel_data);
  // A taskwait or taskgroup is its task's: named by the runtime here, not taken from the thread's
  // task switches, which libomp 14 misnames around untied tasks (BOTS fib on clang: most of its
  // taskwaits lay under the region, outside every task).
  if ((kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup) &&
      ts->omp.ompt.taskwait_depth > 0 &&
      ts->omp.ompt.taskwait_depth <= handler::kMaxTaskwaitBrackets)
    if (const uint32_t origin =
            ts->omp.ompt.taskwait_brackets[ts->omp.ompt.taskwait_depth - 1].origin)
      ctx.task_origin = origin;
  wait_begin_sync(ts, int(kind), construct_address(codeptr_ra), task_data, ctx, instance, role);
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned, unsigned, ompt_wait_id_t wait_id,
                      const void* codeptr_ra) {
  ThreadState* ts = current_thread();
  if (!ts) return;
  ompt_data_t* pd = nullptr;
  int size = 0;
  if (!(g_get_parallel_info && g_get_parallel_info(0, &pd, &size) == 2)) pd = nullptr;
  wait_begin_mutex(ts, int(kind), wait_id, construct_address(codeptr_ra), wait_context(ts, pd));
}

void on_mutex_acquired(ompt_mutex_t, ompt_wait_id_t wait_id, const void*) {
  if (ThreadState* ts = current_thread()) wait_end_mutex(ts, wait_id);
}

void on_task_schedule(ompt_data_t* prior_task, ompt_task_status_t status, ompt_data_t* next_task) {
  if (status == ompt_task_complete || status == ompt_task_late_fulfill ||
      status == ompt_task_cancel) {
    if (prior_task && handler::task_children::linked(&prior_task->value))
      task_origins::erase(prior_task);
    handler::task_children::completed(prior_task ? &prior_task->value : nullptr);
  }
  // A fulfilment completes a detached task from wherever its event is fulfilled: no switch.
  if (status == ompt_task_late_fulfill || status == ompt_task_early_fulfill) return;
  if (ThreadState* ts = current_thread()) {
    ts->omp.ompt.current_task = next_task;
    if (status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_detach)
      task_ended(ts, next_task);
    else
      task_began(ts, next_task);
    wait_task_switch(ts, next_task);
  }
}

}  // namespace

namespace {

// Deferred tasks are counted in their parent, so that a taskwait knows whether it has anything
// to wait for (task_children.h); undeferred ones (if(0), included, a serial team's) complete
// before their parent goes on, under its stack. A deferred task may run on any thread, later:
// its creation path is recorded here (with the fork records' memo) and found again when it runs.
void on_task_create(ompt_data_t* encountering_task, const ompt_frame_t* encountering_frame,
                    ompt_data_t* new_task, int flags, int, const void* codeptr_ra) {
  if (!(flags & ompt_task_explicit) || (flags & ompt_task_undeferred) || !encountering_task ||
      !new_task)
    return;
  if (!handler::task_children::created(&encountering_task->value, &new_task->value)) return;
  if (!openmp::task_paths()) return;
  // The creating context: the creating task's own record (the one this thread runs, as a rule),
  // else the innermost region.
  ThreadState* ts = current_thread();
  uint64_t parent = 0;
  if (ts && ts->omp.ompt.current_task == encountering_task)
    parent = ts->omp.task_origin;
  else if (handler::task_children::linked(&encountering_task->value))
    parent = task_origins::find(encountering_task);
  if (!parent) parent = openmp::enclosing_fork_id();
  const void* enter = nullptr;
  uint64_t cut = 0;
  if (encountering_frame) {
    if (handler::plausible_pointer(encountering_frame->enter_frame.ptr))
      enter = encountering_frame->enter_frame.ptr;
    if (handler::plausible_pointer(encountering_frame->exit_frame.ptr))
      cut = reinterpret_cast<uint64_t>(encountering_frame->exit_frame.ptr);
  }
  const uint32_t id = openmp::record_task_creation(codeptr_ra, enter, parent, cut);
  // Not counted in the record's instances: one atomic on a line every thread writes cost more
  // than the rest of the path (BOTS health: 7 million tasks in 5 s).
  if (id) task_origins::insert(new_task, id);
}

int tool_initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  auto get_state = reinterpret_cast<ompt_get_state_t>(lookup("ompt_get_state"));
  auto get_thread_data = reinterpret_cast<ompt_get_thread_data_t>(lookup("ompt_get_thread_data"));
  g_get_parallel_info =
      reinterpret_cast<ompt_get_parallel_info_t>(lookup("ompt_get_parallel_info"));
  set_task_info_inquiry(reinterpret_cast<ompt_get_task_info_t>(lookup("ompt_get_task_info")));
  if (!set_callback || !get_state || !get_thread_data || !g_get_parallel_info) return 0;
  // Work comes from samples (with ompt_get_state in the handler); waits from exact intervals.
  set_callback(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(on_thread_begin));
  set_callback(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(on_parallel_begin));
  set_callback(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(on_parallel_end));
  set_callback(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(on_implicit_task));
  set_callback(ompt_callback_sync_region_wait,
               reinterpret_cast<ompt_callback_t>(on_sync_region_wait));
  // Exact waits (omp/exact_waits.h): two clock reads per lock acquisition and per task switch
  // inside a wait.
  set_callback(ompt_callback_mutex_acquire, reinterpret_cast<ompt_callback_t>(on_mutex_acquire));
  set_callback(ompt_callback_mutex_acquired, reinterpret_cast<ompt_callback_t>(on_mutex_acquired));
  set_callback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(on_task_schedule));
  set_callback(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(on_task_create));
  if (ThreadState* ts = current_thread()) ts->is_omp_thread = true;
  openmp::note_ompt_started();
  handler::set_ompt_inquiry(get_state, get_thread_data, g_get_parallel_info);
  openmp::journal_runtime_status(recorded_modules());
  return 1;
}

void tool_finalize(ompt_data_t*) {
  // Samples taken from here on are plain samples; the profile is written by the collector's
  // shutdown, which owns the ordering with timers and handlers.
  handler::clear_ompt_inquiry();
}

}  // namespace

}  // namespace omprof::ompt

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int /*omp_version: libomp 14 passes 201611 although it implements 5.0*/,
    const char* runtime_version) {
  using namespace omprof;
  if (!runtime().active.load()) return nullptr;  // decline: this process is not profiled
  openmp::note_runtime_version(runtime_version);
  static ompt_start_tool_result_t result = {ompt::tool_initialize, ompt::tool_finalize, {0}};
  return &result;
}
