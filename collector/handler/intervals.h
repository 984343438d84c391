// The timeline's interval rings (proto/journal.h IntervalRing, docs/format.md "Timeline"): each
// time sample adds its time to the record of the interval it fell in, under its state's class
// (proto/timeline.h), in the thread's sample ring, which only its handler writes; each measured
// wait adds its time to the intervals it spans in the thread's measured ring, which only code
// outside the handler writes. Async-signal-safe: plain stores, no system call.
#pragma once

#include <cstdint>

#include "proto/journal.h"

namespace omprof::handler {

struct ThreadState;

// Ordinary context, when the thread registers (the block is zero-filled).
// No sample-table slot (a sample recorded later, by the code it interrupted).
constexpr uint32_t kNoSlot = ~uint32_t(0);

void init_interval_ring(journal::IntervalRing* ring, uint64_t interval_ns, uint64_t origin_mono_ns);

// Merges records in pairs and doubles the interval (the ring is full). Exposed for the tests.
void coarsen_intervals(journal::IntervalRing* ring);

// Adds a sample of `weight_ns` taken at `mono_ns` in context `ctx` to the sample ring: its time
// unless it only repeats a measured wait (sample_repeats_measured), in which case it is counted;
// `counters`: its journal::kMaxCounters counter deltas (null: none).
void add_to_interval(journal::IntervalRing* ring, uint64_t mono_ns, uint32_t timeline_class,
                     uint64_t weight_ns, const journal::SampleContext& ctx,
                     const uint64_t* counters = nullptr, uint32_t slot = kNoSlot);

// Adds a measured wait of `ns` in context `ctx` that ended at `end_mono_ns` to the measured
// ring, over the intervals it spans (it is placed as one piece ending then; a wait left for
// tasks calls this once per piece).
void add_measured_to_intervals(journal::IntervalRing* ring, uint64_t end_mono_ns, uint64_t ns,
                               const journal::SampleContext& ctx);
// The same on `ts`'s measured ring, and added to its measured total (off_cpu_trail.h): every
// measured wait and MPI call goes through here. Outside the handler, on the thread itself.
void place_measured(ThreadState* ts, uint64_t end_mono_ns, uint64_t ns,
                    const journal::SampleContext& ctx);
// `ts`'s measured time up to `now_mono_ns`: its measured total and the part so far of the
// measured wait or MPI call it is in (ThreadState::omp's measured_open_since_ns, mpi_call), for the
// off-CPU trail (off_cpu_trail.h). In the handler, on the thread itself.
uint64_t measured_so_far_ns(const ThreadState* ts, uint64_t now_mono_ns);

// The timeline class of a sample of `ts` in `ctx`: a taskwait (kInTaskwait) is waiting unless
// the thread runs another task inside it (libomp: the running task is not the waiting one).
uint32_t timeline_class_of(const ThreadState* ts, const journal::SampleContext& ctx);

}  // namespace omprof::handler
