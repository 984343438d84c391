// How an OpenMP wait's time is split, for both runtimes (docs/semantics.md, "Barriers" and
// "GNU libgomp"): pure arithmetic on times the adapters read (the OMPT callbacks,
// collector/ompt/exact_waits.cc; the libgomp wrappers, collector/libgomp/), unit-tested on
// designed timelines (tests/unit/wait_split_test.cc). No clock is read here.
//
// The one barrier-split concept: a member's time at a team barrier is waiting while another
// member still works (the team's imbalance), and the barrier's own synchronization once every
// member has arrived (the release, a waiter preempted or slow to wake). libomp's OMPT gives each
// member's span since the team's last synchronization point, so the imbalance is the longest
// span minus this member's (split_by_longest_span); omprof's libgomp wrappers see when the last
// member arrived (split_at_last_arrival).
#pragma once

#include <cstdint>

namespace omprof::openmp {

struct BarrierSplit {
  uint64_t waiting_ns = 0;  // for the others' work
  uint64_t sync_ns = 0;     // the barrier's synchronization (overhead)
};

// `wait_ns` at a barrier by a member whose span was `own_span_ns`, in a team whose longest span
// was `longest_span_ns`: waiting for as long as the longest exceeds its own, the rest sync.
BarrierSplit split_by_longest_span(uint64_t wait_ns, uint64_t own_span_ns,
                                   uint64_t longest_span_ns);

// `ns` of a wait from `start_ns` to `end_ns` (its whole time, or its time off the CPU), split in
// proportion to the wall time before and after `last_arrival_ns`, when the team's last member
// arrived (0: not known, and then all of it is waiting).
BarrierSplit split_at_last_arrival(uint64_t ns, uint64_t start_ns, uint64_t end_ns,
                                   uint64_t last_arrival_ns);

// A worker's wait at its region's end barrier, begun at `first_start_ns` and `total_ns` long: at
// the barrier until the region ended (`region_end_ns`, when `region_ended`), idle after (it
// waits for the next region, in none).
struct JoinSplit {
  uint64_t barrier_ns = 0;
  uint64_t idle_ns = 0;
};
JoinSplit split_worker_join(uint64_t total_ns, uint64_t first_start_ns, bool region_ended,
                            uint64_t region_end_ns);

// A libgomp worker's time off the CPU (`off_ns`) since its last region ended at `end_ns`, until
// `now_ns`: idle until the next region's fork (`next_fork_ns`, 0: none or unknown), then woken
// for that region (the fork's overhead). The thread sleeps last, so its time off the CPU is
// counted from the end backwards: woken first, then idle; the rest was before the region ended.
struct AfterRegionEnd {
  uint64_t woken_ns = 0;
  uint64_t idle_ns = 0;
  uint64_t rest_ns = 0;
};
AfterRegionEnd split_after_region_end(uint64_t off_ns, uint64_t end_ns, uint64_t now_ns,
                                      uint64_t next_fork_ns);

// Of a libgomp thread's time off the CPU (`off_ns`) at its region's end barrier, from `start_ns`
// to `barrier_end_ns`, the part that is overhead: until every member had begun the body
// (`all_begun_ns`, 0: not yet) and been in it as long as this one (`body_ns`), it waited for the
// fork; after every member had ended it (`all_ended_ns`, 0: not known), for the release and the
// join. In proportion to the wall time of those parts.
uint64_t join_overhead_ns(uint64_t off_ns, uint64_t start_ns, uint64_t barrier_end_ns,
                          uint64_t all_begun_ns, uint64_t body_ns, uint64_t all_ended_ns);
// The same in its two parts, which come first and last in time (the timeline places them so).
struct JoinOverhead {
  uint64_t fork_ns = 0;     // waiting for the fork: before the waiting
  uint64_t release_ns = 0;  // the release and the join: after it
};
JoinOverhead join_overhead(uint64_t off_ns, uint64_t start_ns, uint64_t barrier_end_ns,
                           uint64_t all_begun_ns, uint64_t body_ns, uint64_t all_ended_ns);

// libgomp's cost guard's decision (collector/openmp/cost_guard.h): a thread measures its waits'
// time off the CPU in windows of kGuardWindow waits. A window that took under kGuardMinSpanNs of
// wall time (over 16,000 waits a second, where two CPU clock reads per wait cost more than the
// program's waits) and whose waits were under 10% of it off the CPU stops the measuring for the
// next kGuardPause waits, twice as many after each such window in a row (up to 64 times); a window
// that does not trip the guard resets the count.
constexpr uint64_t kGuardWindow = 1024;
constexpr uint64_t kGuardMinSpanNs = 64000000;
constexpr uint64_t kGuardOffCpuPerMille = 100;
constexpr uint32_t kGuardPause = 16384;
struct GuardDecision {
  bool stop = false;         // stop measuring
  uint32_t pause_waits = 0;  // for this many waits
  uint32_t trips = 0;        // windows in a row that stopped it, this one included
};
// A window of kGuardWindow measured waits ended: it took `span_ns`, its waits `off_ns` off the
// CPU; `trips`: the windows in a row before it that stopped the measuring.
GuardDecision guard_after_window(uint64_t span_ns, uint64_t off_ns, uint32_t trips);

// Thread time off the CPU between two readings of the wall and CPU clocks.
uint64_t off_cpu_ns(uint64_t start_ns, uint64_t cpu_start_ns, uint64_t end_ns, uint64_t cpu_end_ns);
// The part of `ns` that `part` of `whole` wall time stands for (part <= whole, whole > 0).
uint64_t share_of(uint64_t ns, uint64_t part, uint64_t whole);

}  // namespace omprof::openmp
