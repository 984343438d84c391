// The timeline's interval ring (proto/journal.h IntervalRing, docs/format.md "Timeline"): each
// time sample adds its time to the record of the interval it fell in, under its state's class
// (proto/timeline.h). Async-signal-safe: plain stores to the thread's own ring, which only its
// handler writes; no system call.
#pragma once

#include <cstdint>

#include "proto/journal.h"

namespace omprof::handler {

struct ThreadState;

// Ordinary context, when the thread registers (the block is zero-filled).
void init_interval_ring(journal::IntervalRing* ring, uint64_t interval_ns, uint64_t origin_mono_ns);

// Merges records in pairs and doubles the interval (the ring is full). Exposed for the tests.
void coarsen_intervals(journal::IntervalRing* ring);

// Adds `weight_ns` of a sample taken at `mono_ns` in context `ctx` to `ring`.
void add_to_interval(journal::IntervalRing* ring, uint64_t mono_ns, uint32_t timeline_class,
                     uint64_t weight_ns, const journal::SampleContext& ctx);

// The timeline class of a sample of `ts` in `ctx`: a taskwait (kInTaskwait) is waiting unless
// the thread runs another task inside it (libomp: the running task is not the waiting one).
uint32_t timeline_class_of(const ThreadState* ts, const journal::SampleContext& ctx);

}  // namespace omprof::handler
