#include "collector/timeline_events.h"

namespace omprof {

namespace {

void raise_threshold(journal::EventRing* ring) {
  ring->min_ns *= 2;
  ring->raises += 1;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < ring->used; ++i) {
    const journal::EventRecord& e = ring->events[i];
    if (e.end_ns - e.start_ns >= ring->min_ns)
      ring->events[kept++] = e;
    else
      ring->dropped += 1;
  }
  ring->used = kept;
}

}  // namespace

void init_event_ring(journal::EventRing* ring, uint64_t min_ns) {
  ring->capacity = journal::kEventCapacity;
  ring->min_ns = min_ns ? min_ns : 1;
}

void add_timeline_event(journal::EventRing* ring, uint64_t start_ns, uint64_t end_ns,
                        journal::EventKind kind, uint32_t id, uint64_t site) {
  if (!ring || ring->capacity != journal::kEventCapacity || end_ns < start_ns ||
      end_ns - start_ns < ring->min_ns)
    return;
  journal::RingChange changing(ring->seq);
  while (ring->used >= ring->capacity && end_ns - start_ns >= ring->min_ns) raise_threshold(ring);
  if (end_ns - start_ns >= ring->min_ns) {
    ring->events[ring->used] = {start_ns, end_ns, kind, id, site};
    ring->used += 1;
  } else {
    ring->dropped += 1;
  }
}

}  // namespace omprof
