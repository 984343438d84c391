// A thread's cache of region names already resolved to ids, so that a begin or end by name
// hashes the name and compares it, nothing more. Open addressing, kept at most half full; the
// number of entries in use is counted, so an insert costs the same with 10 or 10 million names
// (it was recounted on every insert: 80,000 distinct names took 4.5 s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace omprof::regions {

class NameCache {
 public:
  // The hash of the first `n` bytes of a name (never 0: 0 marks an empty slot). Inline, with
  // find: the begin/end-by-name path (about 40 ns a pair) pays for every call.
  static uint64_t hash(const char* name, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(name[i])) * 0x100000001b3ULL;
    return h | 1;
  }

  // The id cached for the first `n` bytes of `name` (with its hash), or 0.
  int32_t find(uint64_t h, const char* name, size_t n) const {
    const size_t mask = slots_.size() - 1;
    size_t slot = size_t(h) & mask;
    for (size_t probe = 0; probe < slots_.size(); ++probe, slot = (slot + 1) & mask) {
      const Entry& e = slots_[slot];
      if (e.hash == 0) return 0;
      if (e.hash == h && e.name.size() == n && e.name.compare(0, n, name, n) == 0) return e.id;
    }
    return 0;
  }
  // Caches `name` as `id`; the name must not be cached yet.
  void insert(uint64_t h, std::string name, int32_t id);

  size_t size() const { return used_; }
  // Slots visited by inserts so far, for tests of the insert cost.
  uint64_t slots_visited() const { return visited_; }

 private:
  struct Entry {
    uint64_t hash = 0;
    std::string name;
    int32_t id = 0;
  };
  size_t place(uint64_t h);
  std::vector<Entry> slots_ = std::vector<Entry>(64);
  size_t used_ = 0;
  uint64_t visited_ = 0;
};

}  // namespace omprof::regions
