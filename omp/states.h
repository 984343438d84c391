// OpenMP thread states: names, the Work/Wait classification, and the pseudo-frame that stands
// for a waiting thread in user-model stacks. The one definition used by every view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "proto/mpi_calls.h"
#include "proto/state_codes.h"

namespace omprof::omp {

enum class StateClass { kWork, kWait };

struct StateInfo {
  const char* name;  // e.g. "wait_barrier"
  StateClass cls;
  const char* pseudo_frame;  // e.g. "<omp:barrier>", nullptr for work states
};

StateInfo describe_state(uint32_t state);
inline bool is_wait(uint32_t state) {
  return describe_state(state).cls == StateClass::kWait;
}
// The OpenMP runtime doing bookkeeping for the program (creating, dispatching and completing
// tasks, forking and joining, scheduling loop chunks, reductions): Wait, but not waiting.
inline bool is_overhead(uint32_t state) {
  return state == format::kOverhead ||
         (state >= format::kOverheadTask && state <= format::kOverheadBarrier);
}
// Whether a thread's time off the CPU while a sample saw it in `state` stays that state: a
// sampled wait (a taskwait) does; work and the runtime's bookkeeping (overhead) become
// <off-cpu>: being preempted in the runtime is not the runtime's cost.
inline bool keeps_off_cpu_time(uint32_t state) {
  return is_wait(state) && !is_overhead(state);
}
inline bool is_idle(uint32_t state) {
  return state == format::kIdle || state == format::kIdleDerived;
}
// Inside an intercepted MPI call (proto/mpi_calls.h): waiting for other ranks, measured
// exactly by omprof's MPI wrappers (Header.mpi_calls_exact).
inline bool is_mpi(uint32_t state) {
  return format::is_mpi_state(state);
}
// omprof's pseudo-state for thread time that is neither a sampled CPU instant nor an exact wait:
// the thread was preempted, blocked in a system call or sleeping outside any OpenMP wait. It is
// work (the thread was not waiting for other threads), shown as <off-cpu>.
constexpr uint32_t kStateOffCpu = format::kOffCpu;

// The one rule for "in taskwait" (format::kInTaskwait: work_parallel while a taskwait or
// taskgroup wait is open): waiting if the thread is in the OpenMP runtime, i.e. the first frame
// from the leaf that is not a system library's (libc called from the runtime, sched_yield) is
// the runtime's; else it runs a task, which is work. `is_runtime(i)` and `is_system(i)`
// classify frame i from the leaf: from symbols in the viewer (omp::resolve_state), from module
// addresses in the collector (its MPI rank snapshot).
template <typename IsRuntime, typename IsSystem>
uint32_t resolve_taskwait_state(uint32_t state, size_t depth, IsRuntime is_runtime,
                                IsSystem is_system) {
  if (state != format::kInTaskwait) return state;
  for (size_t i = 0; i < depth; ++i) {
    if (is_runtime(i)) return format::kWaitTaskwait;
    if (!is_system(i)) break;
  }
  return format::kWorkParallel;
}

// A thread in a barrier, lock or ordered wait whose leaf (past the system functions it called)
// is the program's code runs a task there, which is work. On libgomp (profiles with
// Header.off_cpu_waits) the state comes from omprof's wrapper of the entry point (gomp/), which
// cannot see the tasks the runtime runs inside it; libomp says so itself (OMPT:
// work_parallel while a task runs).
template <typename IsRuntime, typename IsSystem>
uint32_t resolve_task_in_wait(uint32_t state, size_t depth, IsRuntime is_runtime,
                              IsSystem is_system) {
  using namespace format;
  const bool waits = (state >= kWaitBarrier && state <= kWaitBarrierTeams) ||
                     (state >= kWaitMutex && state <= kWaitOrdered);
  if (!waits) return state;
  for (size_t i = 0; i < depth; ++i) {
    if (is_runtime(i)) return state;
    if (!is_system(i)) return kWorkParallel;
  }
  return state;
}

// On GNU libgomp omprof's wrappers of its entry points time the waits that run no tasks (locks,
// critical, atomic, ordered) whole, as exact waits are on libomp, and other waits off the CPU
// (omp/accounting.h, libgomp_measurement).
inline bool is_measured_whole_on_libgomp(uint32_t state) {
  return state >= format::kWaitMutex && state <= format::kWaitOrdered;
}

// Whether a sample's state may change with its stack (resolve_sampled_state): work, "in
// taskwait", and the OpenMP waits a task may run in.
inline bool may_resolve(uint32_t state) {
  using namespace format;
  return state <= kWorkReduction || state == kInTaskwait || state == kNotOpenMP ||
         (state >= kWaitBarrier && state <= kWaitBarrierTeams) ||
         (state >= kWaitMutex && state <= kWaitOrdered);
}

// The OpenMP runtime entered at `entry` (the runtime function the program's code called):
// kOverheadTask (task entry points, taskwait and taskgroup end included), kOverheadFork,
// kOverheadLoop, kOverheadReduction, else kOverheadRuntime. docs/semantics.md "Work and Wait".
uint32_t overhead_of_entry(const std::string& entry);
// __kmpc_omp_taskwait, GOMP_taskwait, and the end of a taskgroup. Both take a PLT stub's name
// (`__kmpc_omp_taskwait@plt`) for its target's.
bool is_taskwait_entry(const std::string& entry);
// A PLT stub's name (unwind/plt.h) is its target's with "@plt": the target's name.
std::string without_plt(const std::string& name);
// The OpenMP runtimes' entry points, by name: __kmpc_*, __kmp_*, GOMP_*, omp_*, ompc_*, kmp_*.
bool is_runtime_entry_name(const std::string& name);
// A PLT stub (unwind/plt.h) that jumps to one of them: a sample there has entered the runtime,
// so it is runtime code (the program's call to it, not the program's work).
bool is_runtime_plt_stub(const std::string& name);

// A sample's state refined from its stack (frame i from the leaf): "in taskwait" as above,
// with `tasks_in_waits` (libgomp) a task run inside a wait as above, then
// work (or a taskwait wait) whose leaf is runtime code, past the system functions it called, is
// the runtime's overhead, named after its entry point: the outermost runtime frame of that
// leaf segment. A segment through omprof's own code (its libraries count as runtime modules)
// is left alone. Used with symbols by the viewer
// (omp::resolve_state) and with dladdr names by the collector's MPI rank snapshot.
template <typename IsRuntime, typename IsSystem, typename NameOf, typename IsOmprof>
uint32_t resolve_sampled_state(uint32_t state, size_t depth, IsRuntime is_runtime,
                               IsSystem is_system, NameOf name_of, IsOmprof is_omprof,
                               bool tasks_in_waits) {
  using namespace format;
  state = resolve_taskwait_state(state, depth, is_runtime, is_system);
  if (tasks_in_waits) state = resolve_task_in_wait(state, depth, is_runtime, is_system);
  // On libgomp a thread the wrappers have not seen yet (a worker libgomp is starting) is in the
  // runtime's code or the program's.
  const bool work = state == kWorkSerial || state == kWorkParallel || state == kWorkReduction ||
                    (tasks_in_waits && state == kNotOpenMP);
  if (!work && state != kWaitTaskwait) return state;
  size_t i = 0;
  while (i < depth && is_system(i) && !is_runtime(i)) ++i;
  if (i == depth || !is_runtime(i)) return state;
  // omprof's own code at the leaf is the runtime's when the runtime called it (its OMPT
  // callbacks: their cost is the construct's bookkeeping under a tool, not the program's work);
  // called by the program (MPI wrappers, the region API), it is left alone. omprof code below
  // the runtime (the thread start it wraps) ends the segment.
  size_t entry = i;
  bool runtime_entry = false;
  size_t outer_omprof = depth;
  for (size_t j = i; j < depth && (is_runtime(j) || is_system(j)); ++j) {
    if (is_omprof(j)) {
      if (runtime_entry) break;
      outer_omprof = j;
      continue;
    }
    if (is_runtime(j)) {
      entry = j;
      runtime_entry = true;
    }
  }
  // On libgomp the program calls omprof's wrapper of the entry point (gomp/): its own code is
  // that entry point's cost under a tool.
  if (!runtime_entry && tasks_in_waits && outer_omprof < depth) {
    const std::string& name = name_of(outer_omprof);
    if (name.rfind("GOMP_", 0) == 0 || name.rfind("omp_", 0) == 0) return overhead_of_entry(name);
  }
  if (!runtime_entry) return state;
  if (entry + 1 == depth) return state == kWaitTaskwait ? state : uint32_t(kOverheadRuntime);
  const std::string entry_name = name_of(entry);
  const uint32_t kind = overhead_of_entry(entry_name);
  // In a taskwait that waits, the runtime looking for tasks or spinning is waiting (dispatch is
  // not told apart); task creation there is overhead (a profile before format 1.8 marked every
  // taskwait, the tasks run inside it included). Elsewhere a taskwait's runtime code is its
  // bookkeeping: a taskwait with nothing left to wait for, or its entry and exit.
  if (state == kWaitTaskwait)
    return kind == kOverheadTask && !is_taskwait_entry(entry_name) ? kind : state;
  return kind;
}

}  // namespace omprof::omp
