// Counter events per parallel region, exactly (omprof run --counters LIST --region-counters):
// each team member reads its counter group when its implicit task starts and when it arrives
// at the region's end barrier (its body: the team's work and the waits inside it, not the wait
// at the join, which on libomp lasts for a worker until the next region wakes it), and adds the
// difference to the region's fork record (journal::ForkCounts.counters; ForkRecord.counter in
// the profile). Both runtimes' adapters call it: the OMPT callbacks (ompt_tool.cc) and the
// libgomp wrappers (collector/libgomp/regions.cc), on the member's thread, never in the signal
// handler. Without --region-counters every call returns at once.
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::openmp::member_counts {

using handler::ThreadState;

// Whether members count (region_counters_measured()), kept where the callbacks read it.
bool on();
// `ts` starts its part of region instance `instance` of fork record `fork_id`; `construct`:
// for the region's master, the construct it forked (the address its end barrier carries).
void begin(ThreadState* ts, uint64_t fork_id, uint32_t instance, bool master, uint64_t construct);
// `ts` arrived at the end of region instance `instance`: its counts since its start go to the
// region's record. Members of regions nested inside it that never arrived (a serialized region
// on libomp has no end barrier) are closed without counts and counted as lost.
void end(ThreadState* ts, uint32_t instance);
// Whether a region-end barrier that `ts` reached for instance `instance` with `construct` (0: a
// worker's, which carries none) ends its innermost member part.
bool ends_member(const ThreadState* ts, uint32_t instance, uint64_t construct);
// Member parts not counted: their counter group could not be read, deeper than
// kMaxForkNesting, or never closed.
uint64_t lost();

}  // namespace omprof::openmp::member_counts
