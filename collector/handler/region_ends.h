// When each parallel region instance ended, in a ring indexed by instance (parallel_value.h),
// written by the master's parallel_end and read by the exact waits (a worker's join wait splits
// into barrier and idle at its region's end) and by the signal handler (a worker waiting in a
// region that has ended is idle). Atomic loads and stores only: async-signal-safe.
//
// The ring is omprof's own memory. The "ended" mark used to be a bit in the region's
// ompt_data_t, which lives in libomp's team structure: omprof wrote into a cache line the
// team's threads share at every join (with the thread's own copy of the region value,
// ompt_tool.cc, about 40 ns a region on 2 threads: docs/performance.md).
#pragma once

#include <atomic>
#include <cstdint>

namespace omprof::handler {

// An instance is recognised while its slot has not been reused, 4,096 region ends later: a
// worker idle that long past its team's last region (while other teams fork) counts as still
// at the barrier.
constexpr uint32_t kRegionEndRingSize = 4096;

struct RegionEnd {
  std::atomic<uint32_t> instance{0};
  std::atomic<uint64_t> end_ns{0};
};
extern RegionEnd g_region_ends[kRegionEndRingSize];

inline void note_region_end(uint32_t instance, uint64_t now_ns) {
  RegionEnd& e = g_region_ends[instance % kRegionEndRingSize];
  e.end_ns.store(now_ns, std::memory_order_relaxed);
  e.instance.store(instance, std::memory_order_release);
}

// Whether region `instance` has ended; if so, *end_ns is when (when end_ns is not null).
inline bool region_ended(uint32_t instance, uint64_t* end_ns = nullptr) {
  if (instance == 0) return false;
  const RegionEnd& e = g_region_ends[instance % kRegionEndRingSize];
  if (e.instance.load(std::memory_order_acquire) != instance) return false;
  if (end_ns) *end_ns = e.end_ns.load(std::memory_order_relaxed);
  return true;
}

}  // namespace omprof::handler
