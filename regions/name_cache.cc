#include "regions/name_cache.h"

#include <utility>

namespace omprof::regions {

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
