// libgomp: what a thread's wait at its region's end (docs/semantics.md, "GNU libgomp") was, from
// the end of its body to the master's join, or to a worker's next region, measured by its time
// off the CPU (the wait is an entry of the thread's open waits, open_waits.h open_join): idle
// between regions, woken for the next one, the fork's and the release's overhead, or waiting
// for the others' work. Pure: the adapter (collector/libgomp/regions.cc) reads the team's
// shared tables (handler/region_ends.h) and passes them in (tests/unit/join_close_test.cc).
// libomp's OMPT delivers the same wait as exact intervals (collector/ompt/exact_waits.cc,
// split_worker_join in wait_split.h).
#pragma once

#include <cstdint>

namespace omprof::openmp {

// What the team's tables said when the wait (or a piece of it, up to a task run there) closed.
struct JoinFacts {
  // A worker's region had ended (at region_end_ns, before the close): after that, the worker
  // idled, then was woken for the region forked at next_fork_ns (0: none, or unknown).
  bool region_ended = false;
  uint64_t region_end_ns = 0;
  uint64_t next_fork_ns = 0;
  // Every member had begun the body at all_begun_ns (0: not yet; all_begun_known false: the
  // region's slot was reused) and this one's body lasted body_ns; every member had ended it at
  // all_ended_ns (0: not known, or the thread ran a task at the barrier).
  bool all_begun_known = false;
  uint64_t all_begun_ns = 0;
  uint64_t body_ns = 0;
  uint64_t all_ended_ns = 0;
};

// The wait's time off the CPU, in the order it is recorded.
struct JoinParts {
  uint64_t woken_ns = 0;        // the next region's fork overhead (ends at the close)
  uint64_t idle_ns = 0;         // idle between regions (ends where woken_ns begins)
  uint64_t overhead_ns = 0;     // its region's fork and release overhead, of which
  uint64_t release_ns = 0;      // the release's comes last (ends at barrier_end)
  uint64_t waiting_ns = 0;      // waiting at the barrier for the others' work (ends where the
                                // release begins; the fork's part of the overhead before it)
  uint64_t barrier_end_ns = 0;  // the region's end for a worker whose region ended, else the close
};

// `off_ns` of the wait (or a piece of it) from `start_ns` to `now_ns`: after a worker's region
// ended, idle then woken (the thread sleeps last: counted from the close backwards,
// split_after_region_end); before, at the barrier, overhead in proportion to the wall time of the
// fork's and the release's parts (join_overhead_ns), the rest waiting.
JoinParts split_join(uint64_t off_ns, uint64_t start_ns, uint64_t now_ns, const JoinFacts& facts);

}  // namespace omprof::openmp
