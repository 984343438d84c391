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
// same barriers in the same order). A slot has a word per thread of the process (its registry
// index; the first kOwnWords threads), each a tagged span that only that thread writes, with a
// plain store: a locked read-modify-write of one word the whole team raised was most of what a
// barrier cost omprof (a cache miss and a `lock cmpxchg` per thread and barrier: 87% of the wait
// callback's own time in 200,000 regions of a few microseconds). Threads beyond kOwnWords raise
// shared words (compare and swap), as every thread did before. Only spans of at least
// kMinPublishedSpanNs are published (an imbalance below a microsecond is not worth a store
// on the fork-join critical path). A reader that finds no span for its barrier (none was that
// long, or, rarely, another barrier reused the slot since) takes the longest as its own: its
// wait is overhead, to within kMinPublishedSpanNs.
#pragma once

#include <cstdint>

namespace omprof::ompt::barrier_spans {

constexpr uint64_t kMinPublishedSpanNs = 1000;
constexpr uint32_t kOwnWords = 16;     // threads 0 to 15 of the process: a word each
constexpr uint32_t kSharedWords = 16;  // threads 16 and up share these, by index modulo 16

// 0 for no key (the region instance is unknown).
uint64_t key(uint32_t region_instance, uint32_t barrier_number);
// Thread `thread` (its registry index) arrives at the barrier after `span_ns` since its last
// synchronization point: published if kMinPublishedSpanNs or more.
void publish(uint64_t key, uint32_t thread, uint64_t span_ns);
// The barrier's longest span once every thread arrived, or `own_span_ns` if that is longer or
// no span was published; `threads`: the process's threads so far (the words to read).
uint64_t longest(uint64_t key, uint32_t threads, uint64_t own_span_ns);
// Starts reading the barrier's slot, which longest reads soon.
void prefetch(uint64_t key);

}  // namespace omprof::ompt::barrier_spans
