#include "omp/states.h"

namespace omprof::omp {

StateInfo describe_state(uint32_t s) {
  using C = StateClass;
  switch (s) {
    case 0x000:
      return {"work_serial", C::kWork, nullptr};
    case 0x001:
      return {"work_parallel", C::kWork, nullptr};
    case 0x002:
      return {"work_reduction", C::kWork, nullptr};
    case 0x010:
      return {"wait_barrier", C::kWait, "<omp:barrier>"};
    case 0x011:
      return {"wait_barrier_implicit_parallel", C::kWait, "<omp:implicit-barrier>"};
    case 0x012:
      return {"wait_barrier_implicit_workshare", C::kWait, "<omp:barrier>"};
    case 0x013:
      return {"wait_barrier_implicit", C::kWait, "<omp:implicit-barrier>"};
    case 0x014:
      return {"wait_barrier_explicit", C::kWait, "<omp:barrier>"};
    case 0x015:
      return {"wait_barrier_implementation", C::kWait, "<omp:barrier>"};
    case 0x016:
      return {"wait_barrier_teams", C::kWait, "<omp:barrier>"};
    case 0x020:
      return {"wait_taskwait", C::kWait, "<omp:taskwait>"};
    case 0x021:
      return {"wait_taskgroup", C::kWait, "<omp:taskwait>"};
    case 0x040:
      return {"wait_mutex", C::kWait, "<omp:lock-wait>"};
    case 0x041:
      return {"wait_lock", C::kWait, "<omp:lock-wait>"};
    case 0x042:
      return {"wait_critical", C::kWait, "<omp:lock-wait>"};
    case 0x043:
      return {"wait_atomic", C::kWait, "<omp:lock-wait>"};
    case 0x044:
      return {"wait_ordered", C::kWait, "<omp:ordered-wait>"};
    case 0x080:
    case 0x081:
    case 0x082:
      return {"wait_target", C::kWait, "<omp:target-wait>"};
    case 0x100:
      return {"idle", C::kWait, "<omp:idle>"};
    case 0x101:
      return {"overhead", C::kWait, "<omp:overhead>"};
    case 0x102:
      return {"undefined", C::kWork, nullptr};
    case 0x1000:
      return {"not_openmp", C::kWork, nullptr};
    case 0x1001:
      return {"idle", C::kWait, "<omp:idle>"};
    case 0x1003:
      return {"off_cpu", C::kWork, "<off-cpu>"};
    default:
      return {"unknown", C::kWait, "<omp:unknown-wait>"};
  }
}

}  // namespace omprof::omp
