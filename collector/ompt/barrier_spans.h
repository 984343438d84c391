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
// same barriers in the same order). A slot holds a tagged maximum. Only spans of at least
// kMinPublishedSpanNs are published: a slot that the team's threads all write and read is a
// cache line that moves between their cores at every barrier, on the fork-join critical path
// (about 25 ns a region of 400 ns), and an imbalance below a microsecond is not worth it. A
// reader that finds no span for its barrier (none was that long, or, rarely, the slot was
// reused by another barrier since) takes the longest as its own: its wait is overhead, to
// within kMinPublishedSpanNs.
#pragma once

#include <cstdint>

namespace omprof::ompt::barrier_spans {

constexpr uint64_t kMinPublishedSpanNs = 1000;

// 0 for no key (the region instance is unknown).
uint64_t key(uint32_t region_instance, uint32_t barrier_number);
// Raises the barrier's longest span to `span_ns` (at least), if it is kMinPublishedSpanNs or
// more.
void publish(uint64_t key, uint64_t span_ns);
// The barrier's longest span once every thread arrived, or `own_span_ns` if that is longer or
// no span was published.
uint64_t longest(uint64_t key, uint64_t own_span_ns);

}  // namespace omprof::ompt::barrier_spans
