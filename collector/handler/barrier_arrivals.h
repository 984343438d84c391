// On GNU libgomp (collector/libgomp/waits.cc), how many members of a team have arrived at each of
// its explicit and worksharing barriers, so that a member's wait there splits as on libomp
// (collector/ompt/barrier_spans.h): waiting while others still work (the team's imbalance),
// the barrier's own synchronization once every member has arrived (`<omp:barrier-overhead>`:
// the release, a waiter preempted or slow to wake). A barrier is named by its region instance
// and its number among the barriers the members met in that region (every member meets the
// same ones, in order). Slots are reused: a barrier whose slot was taken over is not split (its
// wait stays waiting). Atomic loads, stores and CAS only: async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace omprof::handler::barrier_arrivals {

constexpr uint32_t kSlots = 1024;

// One word: instance (32 bits), barrier number (16 bits, wrapping), members arrived (16 bits).
struct Slot {
  std::atomic<uint64_t> word{0};
  std::atomic<uint64_t> time_tag{0};  // the tag whose last arrival time is in time_ns
  std::atomic<uint64_t> time_ns{0};
};
extern Slot g_slots[kSlots];

inline uint64_t tag(uint32_t instance, uint32_t number) {
  return (uint64_t(instance) << 32) | (uint64_t(number & 0xffff) << 16);
}
inline Slot& slot_of(uint64_t t) {
  return g_slots[((t >> 32) * 31 + ((t >> 16) & 0xffff)) % kSlots];
}

// A member of a team of `team` arrives at barrier `t` at `now_ns` (0: not read; the last
// arrival's time is then not known).
inline void arrive(uint64_t t, uint32_t team, uint64_t now_ns) {
  Slot& s = slot_of(t);
  uint64_t old = s.word.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    next = (old & ~uint64_t(0xffff)) == t && (old & 0xffff) < 0xffff ? old + 1 : t + 1;
  } while (!s.word.compare_exchange_weak(old, next, std::memory_order_acq_rel));
  if ((next & 0xffff) == team && now_ns) {
    s.time_ns.store(now_ns, std::memory_order_relaxed);
    s.time_tag.store(t, std::memory_order_release);
  }
}

// Whether every member of a team of `team` has arrived at barrier `t`.
inline bool all_arrived(uint64_t t, uint32_t team) {
  const uint64_t w = slot_of(t).word.load(std::memory_order_acquire);
  return team && (w & ~uint64_t(0xffff)) == t && (w & 0xffff) >= team;
}

// When the last member arrived at barrier `t` (0: not known).
inline uint64_t all_arrived_ns(uint64_t t) {
  const Slot& s = slot_of(t);
  if (s.time_tag.load(std::memory_order_acquire) != t) return 0;
  const uint64_t ns = s.time_ns.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return s.time_tag.load(std::memory_order_relaxed) == t ? ns : 0;
}

}  // namespace omprof::handler::barrier_arrivals
