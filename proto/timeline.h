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
  kWork,      // the program's code (serial or parallel), threads outside OpenMP, undefined
  kBarrier,   // waiting at a barrier (implicit or explicit)
  kTaskwait,  // waiting in taskwait or taskgroup
  kLock,      // locks, critical, atomic, ordered
  kIdle,      // a worker waiting for work between parallel regions
  kOverhead,  // the OpenMP runtime's bookkeeping (fork, join)
  kMpi,       // inside an MPI call
  kOther,     // any other state (target waits, unknown)
};
static_assert(kOther + 1 == journal::kTimelineClasses);

inline constexpr const char* kClassNames[] = {"work", "barrier",  "taskwait", "lock",
                                              "idle", "overhead", "mpi",      "other"};

// Async-signal-safe: arithmetic only. The state codes are spelled format:: in full: kIdle and
// kOverhead name classes here too.
constexpr Class class_of(uint32_t state) {
  namespace f = format;
  if (state >= f::kMpiFirst) return kMpi;
  if (state <= f::kWorkReduction || state == f::kNotOpenMP || state == f::kUndefined ||
      state == f::kOffCpu)
    return kWork;
  if (state >= f::kWaitBarrier && state <= f::kWaitBarrierTeams) return kBarrier;
  if (state == f::kWaitTaskwait || state == f::kWaitTaskgroup || state == f::kInTaskwait)
    return kTaskwait;
  if (state >= f::kWaitMutex && state <= f::kWaitOrdered) return kLock;
  if (state == f::kIdle || state == f::kIdleDerived) return kIdle;
  if (state == f::kOverhead || (state >= f::kOverheadTask && state <= f::kOverheadBarrier))
    return kOverhead;
  return kOther;
}

// Two neighbouring records as one (a ring's coarsening, and a reader's alignment of two rings):
// times and counts add, the later record's context stays (if it has any). Async-signal-safe.
inline journal::IntervalRecord merged(const journal::IntervalRecord& a,
                                      const journal::IntervalRecord& b) {
  journal::IntervalRecord to = b.samples ? b : a;
  for (size_t c = 0; c < journal::kTimelineClasses; ++c) to.ns[c] = a.ns[c] + b.ns[c];
  for (size_t k = 0; k < journal::kMaxCounters; ++k) to.counters[k] = a.counters[k] + b.counters[k];
  to.samples = a.samples + b.samples;
  return to;
}

}  // namespace omprof::timeline
