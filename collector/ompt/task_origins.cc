#include "collector/ompt/task_origins.h"

#include <atomic>

namespace omprof::ompt::task_origins {

namespace {

// libomp runs at most a few hundred deferred tasks per thread's queue before it executes new
// ones at once (task throttling), so live tasks stay far below the capacity; a slot freed by a
// completion is reused by the next insert probing over it.
constexpr uint32_t kBits = 14;
constexpr uint32_t kCapacity = uint32_t(1) << kBits;
constexpr uint32_t kMaxProbes = 64;
constexpr uint64_t kFree = 0;
constexpr uint64_t kErased = 1;  // never a task address (aligned)

struct alignas(16) Slot {
  std::atomic<uint64_t> key{kFree};
  std::atomic<uint32_t> record{0};
};

// Zero-initialized, never destroyed (callbacks can run after static destructors).
Slot g_slots[kCapacity];
std::atomic<uint64_t> g_dropped{0};

uint32_t home(uint64_t key) {
  return uint32_t(((key >> 3) * 0x9e3779b97f4a7c15ULL) >> (64 - kBits));
}

Slot* locate(uint64_t key) {
  for (uint32_t i = 0, at = home(key); i < kMaxProbes; ++i, at = (at + 1) & (kCapacity - 1)) {
    const uint64_t k = g_slots[at].key.load(std::memory_order_acquire);
    if (k == key) return &g_slots[at];
    if (k == kFree) return nullptr;
  }
  return nullptr;
}

}  // namespace

bool insert(const void* task, uint32_t record) {
  const auto key = reinterpret_cast<uint64_t>(task);
  if (key <= kErased) return false;
  // The first slot free for the key, or the key's own: an address reused by a task whose
  // completion was not seen (a stale entry further on is shadowed by the new one).
  for (uint32_t i = 0, at = home(key); i < kMaxProbes; ++i, at = (at + 1) & (kCapacity - 1)) {
    Slot& s = g_slots[at];
    uint64_t k = s.key.load(std::memory_order_relaxed);
    if (k == key) {
      s.record.store(record, std::memory_order_relaxed);
      return true;
    }
    if (k != kFree && k != kErased) continue;
    // Filled before the key is published: a reader that finds the key sees the record.
    if (s.key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) {
      s.record.store(record, std::memory_order_relaxed);
      return true;
    }
  }
  g_dropped.fetch_add(1, std::memory_order_relaxed);
  return false;
}

uint32_t find(const void* task) {
  const Slot* s = locate(reinterpret_cast<uint64_t>(task));
  return s ? s->record.load(std::memory_order_relaxed) : 0;
}

void erase(const void* task) {
  if (Slot* s = locate(reinterpret_cast<uint64_t>(task))) {
    s->record.store(0, std::memory_order_relaxed);
    s->key.store(kErased, std::memory_order_release);
  }
}

uint64_t dropped() {
  return g_dropped.load(std::memory_order_relaxed);
}

}  // namespace omprof::ompt::task_origins
