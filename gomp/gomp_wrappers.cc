// omprof's wrappers of GNU libgomp's entry points (libomprof_gomp.so). libgomp has no OMPT, so
// omprof learns what an OpenMP thread does from the calls a gcc-built program makes into it:
// the parallel constructs (their fork is recorded, and each team member runs the body through
// run_body, which says which region and thread number it is), and the entry points that wait
// (barriers, critical, atomic, ordered, locks, taskwait), and deferred tasks (their creation
// path is recorded, and they run through run_task, which says which one runs). Everything else
// (loop scheduling, the cost of task creation) is told offline from the stack: runtime code
// entered there is overhead.
// Each wrapper calls the entry point libgomp defines, found with dlsym(RTLD_NEXT).
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "collector/libgomp/bridge.h"
#include "proto/state_codes.h"

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using Body = void (*)(void*);
namespace fmt = omprof::format;

// The entry point `name` of the next library (libgomp), found once.
template <typename F>
F next(std::atomic<void*>& slot, const char* name) {
  void* p = slot.load(std::memory_order_relaxed);
  if (!p) {
    p = dlsym(RTLD_NEXT, name);
    slot.store(p, std::memory_order_relaxed);
  }
  return reinterpret_cast<F>(p);
}
#define NEXT(type, name)                    \
  static std::atomic<void*> slot_{nullptr}; \
  const auto real = next<type>(slot_, #name)

int attached = 0;

__attribute__((constructor)) void attach() {
  attached = omprof_internal_gomp_attach();
}

int thread_num() {
  NEXT(int (*)(), omp_get_thread_num);
  return real ? real() : 0;
}
int team_size() {
  NEXT(int (*)(), omp_get_num_threads);
  return real ? real() : 1;
}

// Whether the running task may have a child task not yet finished, as the wrappers see tasks (a
// region member's implicit task, a task run through run_task; a task libgomp runs at once, if(0),
// is part of the task that creates it): it, or a task it ran at once, has created a deferrable
// task since it began. Until then GOMP_taskwait has nothing to wait for (libgomp returns at once
// when the task's queue of children is empty) and is not timed: a program of fine-grained
// recursive tasks makes millions of those. Set before every way a child is created (GOMP_task
// deferrable or not wrapped, taskloop, target nowait), never cleared by a wait (a wait inside a
// task run at once waits only for that task's children); run_body and run_task start a task with
// it clear and give the one they interrupt its own back.
__thread bool t_children_possible __attribute__((tls_model("initial-exec"))) = false;
void children_possible() {
  t_children_possible = true;
}

// A new task runs on the thread from its construction to its destruction.
struct ChildlessTask {
  const bool outer = t_children_possible;
  ChildlessTask() { t_children_possible = false; }
  ~ChildlessTask() { t_children_possible = outer; }
};

// What run_body needs: the program's outlined body, its data and the region's value. Lives in
// the forking wrapper's frame, which outlasts every team member's body (the join waits for them).
struct Region {
  Body fn;
  void* data;
  uint64_t value;
};

// Every team member, the forking thread included, runs the body through here.
void run_body(void* p) {
  const Region* r = static_cast<const Region*>(p);
  const Body fn = r->fn;
  void* const data = r->data;
  omprof_internal_gomp_member_begin(r->value, unsigned(thread_num()), unsigned(team_size()),
                                    __builtin_frame_address(0));
  const ChildlessTask implicit_task;
  fn(data);
  omprof_internal_gomp_member_end();
  __asm__ volatile("" ::: "memory");  // keeps fn(data) a call: run_body stays on the stack
}

// A fork: records it and, when profiled, has the team run the body through run_body. `call`
// calls the real entry point with (body, data).
template <typename Call>
__attribute__((always_inline)) inline auto fork_region(Body fn, void* data, const void* codeptr,
                                                       const void* frame, Call call) {
  omprof_gomp_context saved;
  Region region{fn, data, attached ? omprof_internal_gomp_fork(codeptr, frame, &saved) : 0};
  if (region.value == 0) return call(fn, data);
  struct Join {
    const Region& r;
    const omprof_gomp_context& saved;
    ~Join() { omprof_internal_gomp_join(r.value, &saved); }
  } join{region, saved};
  return call(run_body, &region);
}

// A wait: the thread is in `state` while the entry point runs.
struct Wait {
  omprof_gomp_context saved;
  Wait(uint32_t state, const void* codeptr) {
    saved.begun = 0;
    if (attached) omprof_internal_gomp_wait_begin(state, codeptr, &saved);
  }
  ~Wait() { omprof_internal_gomp_wait_end(&saved); }
};

// A deferred task's argument block, as omprof hands it to libgomp: this header, then (at
// `offset`, a multiple of the task's alignment) the program's own block, which libgomp copies
// through copy_task when it creates the task. The program's block is read only then, inside
// GOMP_task, as libgomp reads it.
struct TaskHeader {
  Body fn;
  void (*cpyfn)(void*, void*);  // the program's copy function (firstprivate C++ objects), or null
  void* data;                   // the program's block, valid during GOMP_task
  long size;
  long offset;
  uint32_t record;  // the task's creation path (collector/libgomp/bridge.h)
  // The timing of the GOMP_task call that queues the task (valid during that call only).
  omprof_gomp_runtime_call* call;
};
// Blocks larger than this (large firstprivate arrays) are not wrapped: a task libgomp runs at
// once (its queue is full) is copied onto the stack, which a task without a copy function was
// not before.
constexpr long kMaxWrappedTaskData = 4096;
// A detached task's event handle is written by libgomp into the first word of the block it is
// given (gomp-constants.h, GOMP_TASK_FLAG_DETACH): such tasks are passed on as they are.
constexpr unsigned kTaskFlagDetach = 1u << 13;

// With cancellation on (OMP_CANCELLATION), libgomp drops a task created in a cancelled region
// unless it has a copy function, which omprof's wrapping gives every task: tasks without one
// are then passed on as they are.
bool cancellation_on() {
  static const bool on = [] {
    NEXT(int (*)(), omp_get_cancellation);
    return real && real() != 0;
  }();
  return on;
}

// Every wrapped task runs through here, on whichever thread runs it.
void run_task(void* p) {
  const TaskHeader* h = static_cast<const TaskHeader*>(p);
  omprof_gomp_context saved;
  omprof_internal_gomp_task_begin(h->record, __builtin_frame_address(0), &saved);
  const ChildlessTask task;
  h->fn(static_cast<char*>(p) + h->offset);
  omprof_internal_gomp_task_end(&saved);
  __asm__ volatile("" ::: "memory");  // keeps the call a call: run_task stays on the stack
}

void copy_task(void* to, void* from) {
  const auto* h = static_cast<const TaskHeader*>(from);
  std::memcpy(to, h, sizeof *h);
  char* data = static_cast<char*>(to) + h->offset;
  if (h->cpyfn) {
    h->cpyfn(data, h->data);
    // The program's copy constructors ran (its code, which may sleep): the runtime's part of the
    // call is timed from here.
    if (h->call) omprof_internal_gomp_runtime_call_restart(h->call);
  } else if (h->size > 0) {
    std::memcpy(data, h->data, size_t(h->size));
  }
}

}  // namespace

#define FORK(...) \
  fork_region(fn, data, __builtin_return_address(0), __builtin_frame_address(0), __VA_ARGS__)

OMPROF_EXPORT void GOMP_parallel(Body fn, void* data, unsigned n, unsigned flags) {
  NEXT(void (*)(Body, void*, unsigned, unsigned), GOMP_parallel);
  FORK([&](Body f, void* d) { real(f, d, n, flags); });
}

OMPROF_EXPORT unsigned GOMP_parallel_reductions(Body fn, void* data, unsigned n, unsigned flags) {
  NEXT(unsigned (*)(Body, void*, unsigned, unsigned), GOMP_parallel_reductions);
  return FORK([&](Body f, void* d) { return real(f, d, n, flags); });
}

OMPROF_EXPORT void GOMP_parallel_sections(Body fn, void* data, unsigned n, unsigned count,
                                          unsigned flags) {
  NEXT(void (*)(Body, void*, unsigned, unsigned, unsigned), GOMP_parallel_sections);
  FORK([&](Body f, void* d) { real(f, d, n, count, flags); });
}

// GOMP_parallel_loop_<kind>(fn, data, num_threads, start, end, incr, chunk_size, flags).
#define OMPROF_PARALLEL_LOOP_CHUNKED(kind)                                                        \
  OMPROF_EXPORT void GOMP_parallel_loop_##kind(Body fn, void* data, unsigned n, long start,       \
                                               long end, long incr, long chunk, unsigned flags) { \
    NEXT(void (*)(Body, void*, unsigned, long, long, long, long, unsigned),                       \
         GOMP_parallel_loop_##kind);                                                              \
    FORK([&](Body f, void* d) { real(f, d, n, start, end, incr, chunk, flags); });                \
  }
// GOMP_parallel_loop_<kind>(fn, data, num_threads, start, end, incr, flags): schedule(runtime).
#define OMPROF_PARALLEL_LOOP_RUNTIME(kind)                                                        \
  OMPROF_EXPORT void GOMP_parallel_loop_##kind(Body fn, void* data, unsigned n, long start,       \
                                               long end, long incr, unsigned flags) {             \
    NEXT(void (*)(Body, void*, unsigned, long, long, long, unsigned), GOMP_parallel_loop_##kind); \
    FORK([&](Body f, void* d) { real(f, d, n, start, end, incr, flags); });                       \
  }
OMPROF_PARALLEL_LOOP_CHUNKED(static)
OMPROF_PARALLEL_LOOP_CHUNKED(dynamic)
OMPROF_PARALLEL_LOOP_CHUNKED(guided)
OMPROF_PARALLEL_LOOP_CHUNKED(nonmonotonic_dynamic)
OMPROF_PARALLEL_LOOP_CHUNKED(nonmonotonic_guided)
OMPROF_PARALLEL_LOOP_RUNTIME(runtime)
OMPROF_PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
OMPROF_PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

// Entry points that wait, with their state.
#define OMPROF_WAIT(ret, name, state, params, args) \
  OMPROF_EXPORT ret name params {                   \
    NEXT(ret(*) params, name);                      \
    Wait wait(state, __builtin_return_address(0));  \
    return real args;                               \
  }
// gcc reaches explicit barriers and the ends of statically scheduled loops and of `single`
// alike through GOMP_barrier (libomp reports them as implementation barriers too).
// Every member of the team reaches these barriers, in the same order (their waits are split
// at the last arrival); a `single copyprivate` is not one (the thread that runs the single
// waits only in GOMP_single_copy_end, the others only in GOMP_single_copy_start).
constexpr uint32_t kTeamBarrier = OMPROF_GOMP_TEAM_BARRIER;
OMPROF_WAIT(void, GOMP_barrier, fmt::kWaitBarrierImplementation | kTeamBarrier, (), ())
OMPROF_WAIT(bool, GOMP_barrier_cancel, fmt::kWaitBarrierImplementation | kTeamBarrier, (), ())
OMPROF_WAIT(void, GOMP_loop_end, fmt::kWaitBarrierImplicitWorkshare | kTeamBarrier, (), ())
OMPROF_WAIT(bool, GOMP_loop_end_cancel, fmt::kWaitBarrierImplicitWorkshare | kTeamBarrier, (), ())
OMPROF_WAIT(void, GOMP_sections_end, fmt::kWaitBarrierImplicitWorkshare | kTeamBarrier, (), ())
OMPROF_WAIT(bool, GOMP_sections_end_cancel, fmt::kWaitBarrierImplicitWorkshare | kTeamBarrier, (),
            ())
OMPROF_WAIT(void*, GOMP_single_copy_start, fmt::kWaitBarrierImplicitWorkshare, (), ())
OMPROF_WAIT(void, GOMP_single_copy_end, fmt::kWaitBarrierImplicitWorkshare, (void* p), (p))
OMPROF_WAIT(void, GOMP_critical_start, fmt::kWaitCritical, (), ())
OMPROF_WAIT(void, GOMP_critical_name_start, fmt::kWaitCritical, (void** p), (p))
OMPROF_WAIT(void, GOMP_atomic_start, fmt::kWaitAtomic, (), ())
OMPROF_WAIT(void, GOMP_ordered_start, fmt::kWaitOrdered, (), ())
// A taskwait runs tasks while it waits: the viewer tells them apart by the stack. One of a task
// that has no child to wait for is the runtime's bookkeeping, as the first sample of every
// taskwait is (handler/omp_inquiry.cc): it is not timed.
OMPROF_EXPORT void GOMP_taskwait() {
  NEXT(void (*)(), GOMP_taskwait);
  if (!t_children_possible) return real();
  Wait wait(fmt::kInTaskwait, __builtin_return_address(0));
  real();
}
OMPROF_WAIT(void, GOMP_taskwait_depend, fmt::kInTaskwait, (void** d), (d))
OMPROF_WAIT(void, GOMP_taskgroup_end, fmt::kInTaskwait, (), ())
// The lock API (omp_lock_t and omp_nest_lock_t are opaque to omprof).
OMPROF_WAIT(void, omp_set_lock, fmt::kWaitLock, (void* l), (l))
OMPROF_WAIT(void, omp_set_nest_lock, fmt::kWaitLock, (void* l), (l))

// A task construct (gcc 9 and later pass every argument; flags say which are meaningful). A
// deferrable task is handed to libgomp behind omprof's header, so that whichever thread runs
// it knows its creation path; an undeferred one (if(0)) runs in its creator, under its stack,
// and is passed on as it is. taskloop's tasks are not wrapped: libgomp writes each task's bounds at
// the start of its block.
using CopyFn = void (*)(void*, void*);
OMPROF_EXPORT void GOMP_task(Body fn, void* data, CopyFn cpyfn, long arg_size, long arg_align,
                             bool if_clause, unsigned flags, void** depend, int priority,
                             void* detach) {
  NEXT(void (*)(Body, void*, CopyFn, long, long, bool, unsigned, void**, int, void*), GOMP_task);
  if (if_clause) children_possible();
  const bool wrappable = if_clause && !(flags & kTaskFlagDetach) && arg_size >= 0 &&
                         arg_size <= kMaxWrappedTaskData && (cpyfn || !cancellation_on());
  // Queueing the task takes the team's task lock, where a thread may sleep: *call times it. A
  // task libgomp runs at once instead (its queue full) goes through run_task, which the
  // collector counts: such a call is not timed.
  omprof_gomp_runtime_call call;
  const uint32_t record = attached && wrappable
                              ? omprof_internal_gomp_task_create(__builtin_return_address(0),
                                                                 __builtin_frame_address(0), &call)
                              : 0;
  if (!record)
    return real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
  const long align = std::max(arg_align, long(alignof(TaskHeader)));
  const long offset =
      long((sizeof(TaskHeader) + size_t(align) - 1) / size_t(align) * size_t(align));
  TaskHeader header{fn, cpyfn, data, arg_size, offset, record, &call};
  real(run_task, &header, copy_task, offset + arg_size, align, if_clause, flags, depend, priority,
       detach);
  omprof_internal_gomp_runtime_call_end(&call);
}

// Other entry points that create child tasks, passed on as they are: taskloop (its tasks, children
// of the caller, outlive the call with nogroup), and the target constructs, whose nowait form
// makes a task of the host fallback.
OMPROF_EXPORT void GOMP_taskloop(Body fn, void* data, CopyFn cpyfn, long arg_size, long arg_align,
                                 unsigned flags, unsigned long num_tasks, int priority, long start,
                                 long end, long step) {
  NEXT(void (*)(Body, void*, CopyFn, long, long, unsigned, unsigned long, int, long, long, long),
       GOMP_taskloop);
  children_possible();
  real(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}
using Ull = unsigned long long;
OMPROF_EXPORT void GOMP_taskloop_ull(Body fn, void* data, CopyFn cpyfn, long arg_size,
                                     long arg_align, unsigned flags, unsigned long num_tasks,
                                     int priority, Ull start, Ull end, Ull step) {
  NEXT(void (*)(Body, void*, CopyFn, long, long, unsigned, unsigned long, int, Ull, Ull, Ull),
       GOMP_taskloop_ull);
  children_possible();
  real(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}
OMPROF_EXPORT void GOMP_target_ext(int device, Body fn, size_t mapnum, void** hostaddrs,
                                   size_t* sizes, unsigned short* kinds, unsigned flags,
                                   void** depend, void** args) {
  NEXT(void (*)(int, Body, size_t, void**, size_t*, unsigned short*, unsigned, void**, void**),
       GOMP_target_ext);
  children_possible();
  real(device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
}
OMPROF_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void** hostaddrs,
                                          size_t* sizes, unsigned short* kinds, unsigned flags,
                                          void** depend) {
  NEXT(void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned, void**),
       GOMP_target_update_ext);
  children_possible();
  real(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}
OMPROF_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void** hostaddrs,
                                               size_t* sizes, unsigned short* kinds, unsigned flags,
                                               void** depend) {
  NEXT(void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned, void**),
       GOMP_target_enter_exit_data);
  children_possible();
  real(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}
