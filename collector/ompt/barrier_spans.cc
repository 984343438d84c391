#include "collector/ompt/barrier_spans.h"

#include <atomic>

namespace omprof::ompt::barrier_spans {

namespace {

constexpr uint64_t kSlots = 4096;    // barriers in flight at once are few; 32 KB
constexpr uint64_t kValueBits = 48;  // spans up to 78 hours
constexpr uint64_t kValueMask = (uint64_t(1) << kValueBits) - 1;

std::atomic<uint64_t> g_slots[kSlots];

uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}
std::atomic<uint64_t>& slot_of(uint64_t key) {
  return g_slots[mix(key) % kSlots];
}
uint64_t tag_of(uint64_t key) {
  return (mix(key) >> 32) & 0xffff;
}

}  // namespace

uint64_t key(uint32_t region_instance, uint32_t barrier_number) {
  if (region_instance == 0) return 0;
  return (uint64_t(region_instance) << 20) | (barrier_number & 0xfffff);
}

void publish(uint64_t key, uint64_t span_ns) {
  if (!key || span_ns < kMinPublishedSpanNs) return;
  std::atomic<uint64_t>& slot = slot_of(key);
  const uint64_t tag = tag_of(key);
  const uint64_t value = span_ns > kValueMask ? kValueMask : span_ns;
  const uint64_t want = (tag << kValueBits) | value;
  uint64_t old = slot.load(std::memory_order_relaxed);
  // Another barrier's value is replaced; this barrier's is raised. Every thread publishes before
  // it arrives, so the barrier itself orders these writes before any thread's departure.
  while (!((old >> kValueBits) == tag && (old & kValueMask) >= value))
    if (slot.compare_exchange_weak(old, want, std::memory_order_relaxed)) return;
}

uint64_t longest(uint64_t key, uint64_t own_span_ns) {
  if (!key) return own_span_ns;
  const uint64_t v = slot_of(key).load(std::memory_order_relaxed);
  if ((v >> kValueBits) != tag_of(key)) return own_span_ns;
  const uint64_t published = v & kValueMask;
  return published > own_span_ns ? published : own_span_ns;
}

}  // namespace omprof::ompt::barrier_spans
