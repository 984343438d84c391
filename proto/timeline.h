// The timeline's classes of thread state (docs/format.md "Timeline"): the collector adds each
// sample's time to its interval under the class of the state the handler read, and every reader
// names and colours the classes from this table. The handler's raw states only: the offline
// model's refinements (overhead told from a stack, taskwait work) need the stack, which an
// interval does not keep.
#pragma once

#include <cstdint>

#include "proto/journal.h"
#include "proto/state_codes.h"

namespace omprof::timeline {

enum Class : uint32_t {
  kWork,      // the program's code (serial or parallel), and threads outside OpenMP
  kBarrier,   // waiting at a barrier (implicit or explicit)
  kTaskwait,  // waiting in taskwait or taskgroup
  kLock,      // locks, critical, atomic, ordered
  kIdle,      // a worker waiting for work between parallel regions
  kOverhead,  // the OpenMP runtime's bookkeeping (fork, join)
  kMpi,       // inside an MPI call
  kOther,     // any other state (target waits, undefined)
};
static_assert(kOther + 1 == journal::kTimelineClasses);

inline constexpr const char* kClassNames[] = {"work", "barrier",  "taskwait", "lock",
                                              "idle", "overhead", "mpi",      "other"};

// Async-signal-safe: arithmetic only.
constexpr Class class_of(uint32_t state) {
  using namespace format;
  if (state >= kMpiFirst) return kMpi;
  if (state <= kWorkReduction || state == kNotOpenMP) return kWork;
  if (state >= kWaitBarrier && state <= kWaitBarrierTeams) return kBarrier;
  if (state == kWaitTaskwait || state == kWaitTaskgroup || state == kInTaskwait) return kTaskwait;
  if (state >= kWaitMutex && state <= kWaitOrdered) return kLock;
  if (state == kIdle || state == kIdleDerived) return kIdle;
  if (state == kOverhead || (state >= kOverheadTask && state <= kOverheadBarrier)) return kOverhead;
  return kOther;
}

}  // namespace omprof::timeline
