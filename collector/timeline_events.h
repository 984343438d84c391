// The timeline's exact events (proto/journal.h EventRing, docs/format.md "Timeline"): each
// explicit region instance and MPI call of the run's --event-min or more goes into its thread's
// ring with its times. Outside the signal handler, on the thread that owns the ring; plain
// stores and no system call (region calls may come from the program's signal handlers).
#pragma once

#include <cstdint>

#include "proto/journal.h"

namespace omprof {

void init_event_ring(journal::EventRing* ring, uint64_t min_ns);

// Adds the event [start_ns, end_ns) (ns from the run's start) if it is long enough. A full
// ring doubles its threshold and keeps only the events that reach it (the rest counted as
// dropped) until one more fits.
void add_timeline_event(journal::EventRing* ring, uint64_t start_ns, uint64_t end_ns,
                        journal::EventKind kind, uint32_t id, uint64_t site);

}  // namespace omprof
