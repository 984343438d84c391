#include "omp/states.h"

#include "proto/mpi_calls.h"
#include "proto/state_codes.h"

namespace omprof::omp {

namespace {
// The states of a thread waiting for others: barriers, taskwaits, locks, target regions, MPI.
StateInfo describe_waiting(uint32_t s) {
  using C = StateClass;
  using namespace format;
  switch (s) {
    case kWaitBarrier:
      // libomp 14 uses this one for an explicit `omp barrier` and for the end of a worksharing
      // construct (omp for, sections, single) alike: the runtime does not say which.
      return {"wait_barrier", C::kWait, "<omp:barrier>"};
    case kWaitBarrierImplicitParallel:
      return {"wait_barrier_implicit_parallel", C::kWait, "<omp:region-end-barrier>"};
    case kWaitBarrierImplicitWorkshare:
      return {"wait_barrier_implicit_workshare", C::kWait, "<omp:worksharing-end-barrier>"};
    case kWaitBarrierImplicit:
      return {"wait_barrier_implicit", C::kWait, "<omp:region-end-barrier>"};
    case kWaitBarrierExplicit:
      return {"wait_barrier_explicit", C::kWait, "<omp:explicit-barrier>"};
    case kWaitBarrierImplementation:
      // A barrier the runtime did not classify: gcc builds reach every barrier through GOMP_*
      // entry points that carry no kind (explicit barriers and worksharing ends alike).
      return {"wait_barrier_implementation", C::kWait, "<omp:barrier>"};
    case kWaitBarrierTeams:
      return {"wait_barrier_teams", C::kWait, "<omp:teams-barrier>"};
    case kWaitTaskwait:
      return {"wait_taskwait", C::kWait, "<omp:taskwait>"};
    case kWaitTaskgroup:
      return {"wait_taskgroup", C::kWait, "<omp:taskwait>"};
    case kWaitMutex:
      return {"wait_mutex", C::kWait, "<omp:lock-wait>"};
    case kWaitLock:
      return {"wait_lock", C::kWait, "<omp:lock-wait>"};
    case kWaitCritical:
      return {"wait_critical", C::kWait, "<omp:lock-wait>"};
    case kWaitAtomic:
      return {"wait_atomic", C::kWait, "<omp:lock-wait>"};
    case kWaitOrdered:
      return {"wait_ordered", C::kWait, "<omp:ordered-wait>"};
    case kWaitTargetFirst:
    case kWaitTargetFirst + 1:
    case kWaitTargetLast:
      return {"wait_target", C::kWait, "<omp:target-wait>"};
    default:
      // Inside an MPI call: a wait (for other ranks), named after the call.
      if (is_mpi_state(s)) return {"mpi", C::kWait, mpi_pseudo_frame(mpi_call_of(s))};
      return {"unknown", C::kWait, "<omp:unknown-wait>"};
  }
}
}  // namespace

StateInfo describe_state(uint32_t s) {
  using C = StateClass;
  using namespace format;
  switch (s) {
    case kWorkSerial:
      return {"work_serial", C::kWork, nullptr};
    case kWorkParallel:
      return {"work_parallel", C::kWork, nullptr};
    case kWorkReduction:
      return {"work_reduction", C::kWork, nullptr};
    case kIdle:
      return {"idle", C::kWait, "<omp:idle>"};
    case kOverhead:
      return {"overhead", C::kWait, "<omp:overhead>"};
    // Overhead is Wait (the Sun collector API's definition), told apart from waiting.
    case kOverheadTask:
      return {"overhead_task", C::kWait, "<omp:task-overhead>"};
    case kOverheadFork:
      return {"overhead_fork", C::kWait, "<omp:fork-overhead>"};
    case kOverheadLoop:
      return {"overhead_loop", C::kWait, "<omp:loop-overhead>"};
    case kOverheadReduction:
      return {"overhead_reduction", C::kWait, "<omp:reduction-overhead>"};
    case kOverheadRuntime:
      return {"overhead_runtime", C::kWait, "<omp:overhead>"};
    case kOverheadBarrier:
      return {"overhead_barrier", C::kWait, "<omp:barrier-overhead>"};
    case kUndefined:
      return {"undefined", C::kWork, nullptr};
    case kNotOpenMP:
      return {"not_openmp", C::kWork, nullptr};
    case kIdleDerived:
      return {"idle", C::kWait, "<omp:idle>"};
    case kOffCpu:
      return {"off_cpu", C::kWork, "<off-cpu>"};
    default:
      return describe_waiting(s);
  }
}

namespace {
bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool ends_with_plt(const std::string& name) {
  const size_t n = name.size();
  return n > 4 && name.compare(n - 4, 4, "@plt") == 0;
}

}  // namespace

std::string without_plt(const std::string& name) {
  return ends_with_plt(name) ? name.substr(0, name.size() - 4) : name;
}

bool is_runtime_entry_name(const std::string& name) {
  for (const char* prefix : {"__kmpc_", "__kmp_", "GOMP_", "omp_", "ompc_", "kmp_"})
    if (starts_with(name, prefix)) return true;
  return false;
}

bool is_runtime_plt_stub(const std::string& name) {
  return ends_with_plt(name) && is_runtime_entry_name(name);
}

bool is_taskwait_entry(const std::string& name) {
  const std::string entry = without_plt(name);
  return entry == "__kmpc_omp_taskwait" || entry == "GOMP_taskwait" ||
         entry == "__kmpc_end_taskgroup" || entry == "GOMP_taskgroup_end";
}

// What the runtime does for the program when entered at `entry` (the runtime function the
// program's code called): LLVM's __kmpc_* and GNU's GOMP_* entry points. A taskwait's own
// bookkeeping is task overhead; its waiting is told by the collector (in taskwait).
uint32_t overhead_of_entry(const std::string& name) {
  const std::string entry = without_plt(name);
  using namespace format;
  if (is_taskwait_entry(entry) || starts_with(entry, "__kmpc_omp_task") ||
      starts_with(entry, "GOMP_task") || starts_with(entry, "__kmpc_taskloop") ||
      entry == "__kmpc_taskgroup" || starts_with(entry, "__kmpc_omp_target_task"))
    return kOverheadTask;
  if (starts_with(entry, "__kmpc_fork_") || starts_with(entry, "GOMP_parallel") ||
      starts_with(entry, "__kmpc_serialized_parallel") ||
      starts_with(entry, "__kmpc_end_serialized_parallel") ||
      starts_with(entry, "__kmpc_push_num_threads") || starts_with(entry, "GOMP_teams"))
    return kOverheadFork;
  if (starts_with(entry, "__kmpc_for_static_") || starts_with(entry, "__kmpc_dispatch_") ||
      starts_with(entry, "__kmpc_dist_") || starts_with(entry, "GOMP_loop_") ||
      starts_with(entry, "__kmpc_sections_") || starts_with(entry, "GOMP_sections") ||
      starts_with(entry, "__kmpc_single") || starts_with(entry, "__kmpc_end_single") ||
      starts_with(entry, "GOMP_single"))
    return kOverheadLoop;
  if (starts_with(entry, "__kmpc_reduce") || starts_with(entry, "__kmpc_end_reduce"))
    return kOverheadReduction;
  return kOverheadRuntime;
}

}  // namespace omprof::omp
