// Distinct stacks of a profile, interned across threads and fork records, and the string
// table. Ordinary context, at shutdown.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace omprof::writer {

class StringTable {
 public:
  StringTable() { index(""); }
  uint64_t index(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    ids_.emplace(s, entries_.size());
    entries_.push_back(s);
    return entries_.size() - 1;
  }
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::unordered_map<std::string, uint64_t> ids_;
  std::vector<std::string> entries_;
};

class StackTable {
 public:
  // The id (from 1) of a stack, `flags` (handler::kStack*) being part of its identity.
  uint64_t intern(const uint64_t* frames, uint32_t depth, uint16_t flags) {
    std::vector<uint64_t> key(frames, frames + depth);
    key.push_back(flags);
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    const uint64_t id = stacks_.size() + 1;
    stacks_.push_back(&ids_.emplace(std::move(key), id).first->first);
    return id;
  }
  size_t size() const { return stacks_.size(); }
  // Stack i (from 0): its frames, leaf first, and its flags.
  std::vector<uint64_t> frames(size_t i) const {
    return std::vector<uint64_t>(stacks_[i]->begin(), stacks_[i]->end() - 1);
  }
  uint16_t flags(size_t i) const { return uint16_t(stacks_[i]->back()); }

 private:
  struct Hash {
    size_t operator()(const std::vector<uint64_t>& v) const {
      size_t h = v.size();
      for (uint64_t x : v) h = h * 1000003u ^ std::hash<uint64_t>()(x);
      return h;
    }
  };
  std::unordered_map<std::vector<uint64_t>, uint64_t, Hash> ids_;
  std::vector<const std::vector<uint64_t>*> stacks_;
};

}  // namespace omprof::writer
