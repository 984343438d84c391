// When each parallel region instance ended, in a ring indexed by instance (parallel_value.h),
// written by the master's parallel_end and read by the exact waits (a worker's join wait splits
// into barrier and idle at its region's end, and into idle and woken at the master's next fork)
// and by the signal handler (a worker waiting in a region that has ended is idle). Atomic loads and
// stores only: async-signal-safe.
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

// A line each: an entry other threads read (a worker's wake-up) then shares no line with the next
// region's, which its master writes meanwhile (1.4% of 100,000 tiny regions' time under omprof).
struct alignas(64) RegionEnd {
  std::atomic<uint32_t> instance{0};
  std::atomic<uint64_t> end_ns{0};
  // The master's next fork at the same depth (collector/openmp/events.cc), which wakes the
  // region's workers waiting since its end (0: none yet), and its fork record. On the line a
  // waking worker reads anyway.
  std::atomic<uint64_t> next_fork_ns{0};
  std::atomic<uint64_t> next_fork_id{0};
  std::atomic<uint32_t> next_team{0};  // its team's size as requested (0: not known)
  std::atomic<uint32_t> next_instance{0};
};
extern RegionEnd g_region_ends[kRegionEndRingSize];

// Starts reading region `instance`'s entry, which region_ended or waking_fork_ns reads soon.
inline void prefetch_region_end(uint32_t instance) {
  __builtin_prefetch(&g_region_ends[instance % kRegionEndRingSize]);
}

inline void note_region_end(uint32_t instance, uint64_t now_ns) {
  RegionEnd& e = g_region_ends[instance % kRegionEndRingSize];
  e.end_ns.store(now_ns, std::memory_order_relaxed);
  e.next_fork_ns.store(0, std::memory_order_relaxed);
  e.instance.store(instance, std::memory_order_release);
}

// The master of region `ended`, which has ended, forks its team's next region (instance
// `next`, record `fork_id`, `team` threads requested, 0: not known) at `fork_ns`.
inline void note_next_fork(uint32_t ended, uint64_t fork_ns, uint32_t next, uint64_t fork_id,
                           uint32_t team) {
  RegionEnd& e = g_region_ends[ended % kRegionEndRingSize];
  if (e.instance.load(std::memory_order_acquire) != ended) return;  // reused since
  e.next_instance.store(next, std::memory_order_relaxed);
  e.next_fork_id.store(fork_id, std::memory_order_relaxed);
  e.next_team.store(team, std::memory_order_relaxed);
  e.next_fork_ns.store(fork_ns, std::memory_order_release);
}

// When the fork that wakes worker `thread_num` of region `instance`, waiting since the region
// ended, happened, and its record (*fork_id) and instance (*next, when not null); 0 when there
// is none yet, it is not known, or the next team is too small to have this worker (it stays
// idle, for a later fork to wake).
inline uint64_t waking_fork_ns(uint32_t instance, uint32_t thread_num, uint64_t* fork_id,
                               uint32_t* next = nullptr) {
  const RegionEnd& e = g_region_ends[instance % kRegionEndRingSize];
  if (instance == 0 || e.instance.load(std::memory_order_acquire) != instance) return 0;
  const uint64_t ns = e.next_fork_ns.load(std::memory_order_acquire);
  const uint32_t team = e.next_team.load(std::memory_order_relaxed);
  *fork_id = e.next_fork_id.load(std::memory_order_relaxed);
  if (next) *next = e.next_instance.load(std::memory_order_relaxed);
  if (team != 0 && thread_num >= team) return 0;
  return e.instance.load(std::memory_order_acquire) == instance ? ns : 0;
}

// On GNU libgomp (collector/libgomp/regions.cc), how many members of a region instance's team
// have started its body, in a ring like the ends': until every member has, a member waiting at
// the region's end barrier waits for the fork to complete (a worker still being woken), which is
// the runtime's overhead, not another thread's work. And how many have ended it: once every
// member has, the rest of the wait at that barrier is its own synchronization (the release,
// the join), not the team's imbalance: the join's overhead, as libomp's barrier spans tell it
// (collector/ompt/barrier_spans.h).
// A line each, as RegionEnd: every member writes its region's (1.4% of tiny regions on libgomp).
struct alignas(64) RegionStart {
  std::atomic<uint32_t> instance{0};
  std::atomic<uint32_t> begun{0};
  std::atomic<uint32_t> ended{0};
  std::atomic<uint32_t> team{0};
  std::atomic<uint64_t> all_begun_ns{0};
  std::atomic<uint64_t> all_ended_ns{0};
  std::atomic<uint64_t> fork_ns{0};
};
extern RegionStart g_region_starts[kRegionEndRingSize];

// The forking thread, before any member starts.
inline void note_region_fork(uint32_t instance, uint64_t now_ns) {
  RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  s.instance.store(0, std::memory_order_relaxed);
  s.begun.store(0, std::memory_order_relaxed);
  s.ended.store(0, std::memory_order_relaxed);
  s.team.store(0, std::memory_order_relaxed);
  s.all_begun_ns.store(0, std::memory_order_relaxed);
  s.all_ended_ns.store(0, std::memory_order_relaxed);
  s.fork_ns.store(now_ns, std::memory_order_relaxed);
  s.instance.store(instance, std::memory_order_release);
}

// When region `instance` was forked (0: unknown, its slot was reused).
inline uint64_t region_fork_ns(uint32_t instance) {
  const RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  if (s.instance.load(std::memory_order_acquire) != instance) return 0;
  return s.fork_ns.load(std::memory_order_relaxed);
}

// A member of a team of `team` starts the body at `now_ns`.
inline void note_member_begun(uint32_t instance, uint32_t team, uint64_t now_ns) {
  RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  if (s.instance.load(std::memory_order_acquire) != instance) return;
  s.team.store(team, std::memory_order_relaxed);
  if (s.begun.fetch_add(1, std::memory_order_acq_rel) + 1 == team)
    s.all_begun_ns.store(now_ns, std::memory_order_release);
}

// A member ends the body at `now_ns` (after it began it: the team size is known).
inline void note_member_ended(uint32_t instance, uint64_t now_ns) {
  RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  if (s.instance.load(std::memory_order_acquire) != instance) return;
  const uint32_t team = s.team.load(std::memory_order_relaxed);
  if (team && s.ended.fetch_add(1, std::memory_order_acq_rel) + 1 == team)
    s.all_ended_ns.store(now_ns, std::memory_order_release);
}

// When every member of region `instance` had ended its body: 0 if not yet, or unknown (the slot
// was reused).
inline uint64_t all_members_ended_ns(uint32_t instance) {
  const RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  if (s.instance.load(std::memory_order_acquire) != instance) return 0;
  return s.all_ended_ns.load(std::memory_order_acquire);
}

// When every member of region `instance` had started its body: 0 if not yet (or unknown: the
// slot was reused, then the fork counts as complete: UINT64_MAX is never returned).
inline uint64_t all_members_begun_ns(uint32_t instance, bool* known) {
  const RegionStart& s = g_region_starts[instance % kRegionEndRingSize];
  *known = s.instance.load(std::memory_order_acquire) == instance;
  return *known ? s.all_begun_ns.load(std::memory_order_acquire) : 0;
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
