// What a barrier's wait is made of: waiting for a thread that had more to do, or the runtime's
// synchronization (a thread that started late because the fork woke it late, the barrier's own
// gather and release). Each thread publishes, when it arrives at a barrier, its span: the time
// since its last synchronization point in the region (its implicit task's start, or its
// departure from the team's previous barrier). A thread's wait is waiting for as long as the
// longest span of its team exceeds its own (the imbalance), and overhead beyond that. In 200,000
// empty regions every span is about 0, so the join is overhead, not waiting; in a loop built
// with an imbalance the designed difference stays waiting (docs/semantics.md).
//
// One slot per barrier instance in a fixed table (no allocation, callback context only): the
// key is the region instance and the barrier's number in it (every thread of a team meets the
// same barriers in the same order). A slot holds a tagged maximum; a reader that finds another
// barrier's tag (the slot was reused) gets nothing and the wait stays waiting, as before.
#pragma once

#include <cstdint>

namespace omprof::ompt::barrier_spans {

// 0 for no key (the region instance is unknown).
uint64_t key(uint32_t region_instance, uint32_t barrier_number);
// Raises the barrier's longest span to `span_ns` (at least).
void publish(uint64_t key, uint64_t span_ns);
// The barrier's longest span, once every thread arrived; false if the slot was reused.
bool longest(uint64_t key, uint64_t* span_ns);

}  // namespace omprof::ompt::barrier_spans
