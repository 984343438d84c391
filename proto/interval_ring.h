// Reading a thread's interval rings (proto/journal.h IntervalRing) while its thread may still
// write them: in the collector when it writes the profile, in a reader of a live or dead
// process's journal. Only the records in use are read: the rest of a ring is never touched
// (a reader would otherwise bring 544 KB of file pages per ring and thread into memory). Ordinary
// context.
#pragma once

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <vector>

#include "proto/journal.h"
#include "proto/timeline.h"

namespace omprof::journal {

struct IntervalRingCopy {
  uint64_t interval_ns = 0;
  uint32_t coarsenings = 0;
  std::vector<IntervalRecord> records;  // [0, used)
};

// Runs `read` (which copies a ring, false when the ring does not look like one) between two
// equal even values of the ring's `seq`, so that the copy is one its writer was not changing;
// false when it kept changing or `read` failed.
template <typename Read>
bool read_unchanged(const std::atomic<uint32_t>& seq, Read&& read) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint32_t before = seq.load(std::memory_order_acquire);
    if (before & 1) continue;
    if (!read()) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq.load(std::memory_order_relaxed) == before) return true;
  }
  return false;
}

// Copies the records in use of `live`.
inline bool copy_interval_ring(const IntervalRing& live, IntervalRingCopy& out) {
  return read_unchanged(live.seq,
                        [&] {
                          const uint32_t capacity = live.capacity, used = live.used;
                          if (capacity != kIntervalCapacity || used > capacity) return false;
                          out.interval_ns = live.interval_ns;
                          out.coarsenings = live.coarsenings;
                          out.records.assign(live.records, live.records + used);
                          return true;
                        }) &&
         out.interval_ns > 0;
}

// Whether a record holds anything: a measured wait spans intervals, and counts only in the last.
inline bool holds_anything(const IntervalRecord& r) {
  if (r.samples) return true;
  for (uint64_t ns : r.ns)
    if (ns) return true;
  return false;
}

// Merges a copy's records in pairs until its interval is `interval_ns` (the rings of a thread
// start with one interval and each doubles it on its own).
inline void coarsen_copy(IntervalRingCopy& c, uint64_t interval_ns) {
  while (c.interval_ns < interval_ns) {
    std::vector<IntervalRecord> merged((c.records.size() + 1) / 2, IntervalRecord{});
    for (size_t i = 0; i < c.records.size(); ++i)
      merged[i / 2] = i % 2 ? timeline::merged(merged[i / 2], c.records[i]) : c.records[i];
    c.records = std::move(merged);
    c.interval_ns *= 2;
    c.coarsenings += 1;
  }
}

// A thread's timeline: its samples' and its measured waits' records on one grid (the coarser
// ring's), of the same length.
struct ThreadIntervals {
  uint64_t interval_ns = 0;
  uint32_t coarsenings = 0;
  std::vector<IntervalRecord> sampled, measured;
};

// Copies the thread's rings (`measured` may be null: a journal before version 12); false when
// the sample ring cannot be read.
inline bool copy_thread_intervals(const IntervalRing& sampled, const IntervalRing* measured,
                                  ThreadIntervals& out) {
  IntervalRingCopy s, m;
  if (!copy_interval_ring(sampled, s)) return false;
  if (measured && copy_interval_ring(*measured, m)) {
    coarsen_copy(s, m.interval_ns);
    coarsen_copy(m, s.interval_ns);
  } else {
    m.records.clear();
  }
  out.interval_ns = s.interval_ns;
  out.coarsenings = s.coarsenings;
  out.sampled = std::move(s.records);
  out.measured = std::move(m.records);
  const size_t n = std::max(out.sampled.size(), out.measured.size());
  out.sampled.resize(n, IntervalRecord{});
  out.measured.resize(n, IntervalRecord{});
  return true;
}

struct EventRingCopy {
  uint64_t min_ns = 0, dropped = 0;
  std::vector<EventRecord> events;
};

// Copies the events in use of `live`.
inline bool copy_event_ring(const EventRing& live, EventRingCopy& out) {
  return read_unchanged(live.seq, [&] {
    const uint32_t capacity = live.capacity, used = live.used;
    if (capacity != kEventCapacity || used > capacity) return false;
    out.min_ns = live.min_ns;
    out.dropped = live.dropped;
    out.events.assign(live.events, live.events + used);
    return true;
  });
}

// A record's leads as the thread's samples (`sample_of_slot`: a table slot's index in its
// sample list; slots not there are left out) and how many picks each is. Not for the handler.
inline void lead_samples(const journal::IntervalRecord& r,
                         const std::unordered_map<uint32_t, uint32_t>& sample_of_slot,
                         std::vector<uint32_t>& samples, std::vector<uint32_t>& picks) {
  for (uint32_t slot : r.lead_slot) {
    if (slot == 0) continue;
    const auto it = sample_of_slot.find(slot - 1);
    if (it == sample_of_slot.end()) continue;
    size_t k = 0;
    while (k < samples.size() && samples[k] != it->second) ++k;
    if (k == samples.size()) {
      samples.push_back(it->second);
      picks.push_back(0);
    }
    ++picks[k];
  }
}

}  // namespace omprof::journal
