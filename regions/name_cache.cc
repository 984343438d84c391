#include "regions/name_cache.h"

#include <utility>

namespace omprof::regions {

uint64_t NameCache::hash(const char* name, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(name[i])) * 0x100000001b3ULL;
  return h | 1;
}

int32_t NameCache::find(uint64_t h, const char* name, size_t n) const {
  const size_t mask = slots_.size() - 1;
  size_t slot = size_t(h) & mask;
  for (size_t probe = 0; probe < slots_.size(); ++probe, slot = (slot + 1) & mask) {
    const Entry& e = slots_[slot];
    if (e.hash == 0) return 0;
    if (e.hash == h && e.name.size() == n && e.name.compare(0, n, name, n) == 0) return e.id;
  }
  return 0;
}

// The first empty slot of `h`'s probe sequence.
size_t NameCache::place(uint64_t h) {
  const size_t mask = slots_.size() - 1;
  size_t slot = size_t(h) & mask;
  for (++visited_; slots_[slot].hash; slot = (slot + 1) & mask) ++visited_;
  return slot;
}

void NameCache::insert(uint64_t h, std::string name, int32_t id) {
  if (2 * (used_ + 1) > slots_.size()) {  // grow, keeping the table at most half full
    std::vector<Entry> old(slots_.size() * 2);
    old.swap(slots_);
    for (Entry& e : old)
      if (e.hash) slots_[place(e.hash)] = std::move(e);
  }
  slots_[place(h)] = Entry{h, std::move(name), id};
  ++used_;
}

}  // namespace omprof::regions
