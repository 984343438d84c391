// The thread-state codes a profile records (Sample.omp_state, WaitEntry.omp_state): OMPT's
// numbers (omp-tools.h, ompt_state_t; some names are deprecated in OpenMP 5.1 headers, the
// values are stable) and omprof's own, above 0x1000. The one place these numbers are spelled:
// the handler, the OMPT tool and the offline OpenMP model all use these names.
#pragma once

#include <cstdint>

namespace omprof::format {

enum StateCode : uint32_t {
  kWorkSerial = 0x000,
  kWorkParallel = 0x001,
  kWorkReduction = 0x002,
  kWaitBarrier = 0x010,
  kWaitBarrierImplicitParallel = 0x011,
  kWaitBarrierImplicitWorkshare = 0x012,
  kWaitBarrierImplicit = 0x013,
  kWaitBarrierExplicit = 0x014,
  kWaitBarrierImplementation = 0x015,
  kWaitBarrierTeams = 0x016,
  kWaitTaskwait = 0x020,
  kWaitTaskgroup = 0x021,
  kWaitMutex = 0x040,
  kWaitLock = 0x041,
  kWaitCritical = 0x042,
  kWaitAtomic = 0x043,
  kWaitOrdered = 0x044,
  kWaitTargetFirst = 0x080,
  kWaitTargetLast = 0x082,
  kIdle = 0x100,
  kOverhead = 0x101,
  kUndefined = 0x102,
  // omprof's own.
  kNotOpenMP = 0x1000,    // not an OpenMP thread, or no OMPT
  kIdleDerived = 0x1001,  // a worker waiting for work between regions
  kInTaskwait = 0x1002,   // work_parallel inside a taskwait/taskgroup wait (resolved offline)
  kOffCpu = 0x1003,       // thread time neither sampled on a CPU nor an exact wait
  // Runtime overhead, derived by readers from a sample's stack (never written): runtime code
  // entered from the program through a task, fork/join, loop-scheduling or reduction entry point
  // (omp::resolve_state), or any other runtime code (kOverheadRuntime). kOverhead (0x101) is
  // OMPT's own state, measured exactly by omprof for fork and join.
  kOverheadTask = 0x1004,
  kOverheadFork = 0x1005,
  kOverheadLoop = 0x1006,
  kOverheadReduction = 0x1007,
  kOverheadRuntime = 0x1008,  // other runtime code in a work state (kOverhead is exact fork/join)
  // Measured (1.8): the part of a barrier's exact wait beyond the team's imbalance, the runtime's
  // synchronization (a region-end barrier's is kOverhead, the join).
  kOverheadBarrier = 0x1009,
  // Inside an intercepted MPI call: kMpiFirst + the call's number (proto/mpi_calls.h).
  kMpiFirst = 0x2000,
};

}  // namespace omprof::format
