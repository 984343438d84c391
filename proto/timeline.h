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

// The record's `nth` sample (from 1), of sample-table slot `slot`, among its leads: reservoir
// sampling, so that each of its samples is a lead with the same chance (kIntervalLeads / n) and
// the leads estimate what the thread ran in the interval without bias. `random`: the ring's
// state (xorshift). Async-signal-safe.
inline void pick_lead(journal::IntervalRecord& r, uint32_t nth, uint32_t slot, uint32_t& random) {
  if (nth == 0) return;
  if (nth <= journal::kIntervalLeads) {
    r.lead_slot[nth - 1] = slot + 1;
    return;
  }
  uint32_t x = random ? random : 0x9e3779b9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  random = x;
  const uint32_t at = x % nth;
  if (at < journal::kIntervalLeads) r.lead_slot[at] = slot + 1;
}

// Two neighbouring records as one (a ring's coarsening, and a reader's alignment of two rings):
// times and counts add, the later record's context stays (if it has any), the leads of both
// with the most samples stay. Async-signal-safe.
inline journal::IntervalRecord merged(const journal::IntervalRecord& a,
                                      const journal::IntervalRecord& b) {
  journal::IntervalRecord to = b.samples ? b : a;
  for (size_t c = 0; c < journal::kTimelineClasses; ++c) to.ns[c] = a.ns[c] + b.ns[c];
  for (size_t k = 0; k < journal::kMaxCounters; ++k) to.counters[k] = a.counters[k] + b.counters[k];
  to.samples = a.samples + b.samples;
  // Leads for both, in proportion to their samples (the first record's first).
  const uint32_t n = a.samples + b.samples;
  const uint32_t from_a =
      n ? uint32_t((uint64_t(journal::kIntervalLeads) * a.samples + n / 2) / n) : 0;
  uint32_t k = 0;
  for (uint32_t j = 0; j < journal::kIntervalLeads && k < from_a; ++j)
    if (a.lead_slot[j]) to.lead_slot[k++] = a.lead_slot[j];
  for (uint32_t j = 0; j < journal::kIntervalLeads && k < journal::kIntervalLeads; ++j)
    if (b.lead_slot[j]) to.lead_slot[k++] = b.lead_slot[j];
  for (uint32_t j = 0; j < journal::kIntervalLeads && k < journal::kIntervalLeads; ++j)
    if (j >= from_a && a.lead_slot[j]) to.lead_slot[k++] = a.lead_slot[j];
  while (k < journal::kIntervalLeads) to.lead_slot[k++] = 0;
  return to;
}

}  // namespace omprof::timeline
