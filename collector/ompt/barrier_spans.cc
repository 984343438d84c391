#include "collector/ompt/barrier_spans.h"

#include <atomic>

namespace omprof::ompt::barrier_spans {

namespace {

constexpr uint64_t kSlots = 1024;    // barriers in flight at once are few; 256 B each
constexpr uint64_t kValueBits = 48;  // spans up to 78 hours
constexpr uint64_t kValueMask = (uint64_t(1) << kValueBits) - 1;

struct alignas(64) Slot {
  std::atomic<uint64_t> own[kOwnWords];
  std::atomic<uint64_t> shared[kSharedWords];
};
Slot g_slots[kSlots];

uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}
Slot& slot_of(uint64_t key) {
  return g_slots[mix(key) % kSlots];
}
uint64_t tag_of(uint64_t key) {
  return (mix(key) >> 32) & 0xffff;
}

// The span in `word` if it is this barrier's (its tag), else 0.
uint64_t span_in(const std::atomic<uint64_t>& word, uint64_t tag) {
  const uint64_t v = word.load(std::memory_order_relaxed);
  return (v >> kValueBits) == tag ? v & kValueMask : 0;
}

}  // namespace

uint64_t key(uint32_t region_instance, uint32_t barrier_number) {
  if (region_instance == 0) return 0;
  return (uint64_t(region_instance) << 20) | (barrier_number & 0xfffff);
}

void publish(uint64_t key, uint32_t thread, uint64_t span_ns) {
  if (!key || span_ns < kMinPublishedSpanNs) return;
  Slot& slot = slot_of(key);
  const uint64_t tag = tag_of(key);
  const uint64_t value = span_ns > kValueMask ? kValueMask : span_ns;
  const uint64_t want = (tag << kValueBits) | value;
  // Every thread publishes before it arrives, so the barrier itself orders these writes before
  // any thread's departure.
  if (thread < kOwnWords) {
    slot.own[thread].store(want, std::memory_order_relaxed);  // only this thread writes it
    return;
  }
  // A shared word: another barrier's value is replaced, this barrier's is raised.
  std::atomic<uint64_t>& word = slot.shared[thread % kSharedWords];
  uint64_t old = word.load(std::memory_order_relaxed);
  while (!((old >> kValueBits) == tag && (old & kValueMask) >= value))
    if (word.compare_exchange_weak(old, want, std::memory_order_relaxed)) return;
}

void prefetch(uint64_t key) {
  if (key) __builtin_prefetch(&slot_of(key));
}

uint64_t longest(uint64_t key, uint32_t threads, uint64_t own_span_ns) {
  if (!key) return own_span_ns;
  const Slot& slot = slot_of(key);
  const uint64_t tag = tag_of(key);
  uint64_t most = own_span_ns;
  for (uint32_t t = 0; t < threads && t < kOwnWords; ++t) {
    const uint64_t span = span_in(slot.own[t], tag);
    if (span > most) most = span;
  }
  if (threads > kOwnWords)
    for (const std::atomic<uint64_t>& word : slot.shared) {
      const uint64_t span = span_in(word, tag);
      if (span > most) most = span;
    }
  return most;
}

}  // namespace omprof::ompt::barrier_spans
