// Reading a thread's interval ring (proto/journal.h IntervalRing) while its thread may still
// write it: in the collector when it writes the profile, in a reader of a live or dead
// process's journal. Only the records in use are read: the rest of the ring is never touched
// (a reader would otherwise bring 360 KB of file pages per thread into memory). Ordinary context.
#pragma once

#include <atomic>
#include <vector>

#include "proto/journal.h"

namespace omprof::journal {

struct IntervalRingCopy {
  uint64_t interval_ns = 0;
  uint32_t coarsenings = 0;
  std::vector<IntervalRecord> records;  // [0, used)
};

// Copies `live` between two equal even sequence numbers (the handler was not changing it);
// false when it kept changing, or does not look like a ring.
inline bool copy_interval_ring(const IntervalRing& live, IntervalRingCopy& out) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint32_t before = live.seq.load(std::memory_order_acquire);
    if (before & 1) continue;
    const uint32_t capacity = live.capacity, used = live.used;
    if (capacity != kIntervalCapacity || used > capacity) return false;
    out.interval_ns = live.interval_ns;
    out.coarsenings = live.coarsenings;
    out.records.assign(live.records, live.records + used);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (live.seq.load(std::memory_order_relaxed) != before) continue;
    return out.interval_ns > 0;
  }
  return false;
}

}  // namespace omprof::journal
