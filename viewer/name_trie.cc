#include "viewer/name_trie.h"

#include <limits>
#include <stdexcept>

namespace omprof::viewer {

NameTrie::NameTrie() : nodes_(1), slots_(1024, 0) {}

size_t NameTrie::hash(size_t parent, const omp::Name& name) {
  // Names are interned: their address identifies them.
  uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(name.identity())) * 0x9e3779b97f4a7c15ULL;
  h ^= uint64_t(parent) * 0xc2b2ae3d27d4eb4fULL;
  return size_t(h ^ (h >> 29));
}

size_t NameTrie::child(size_t parent, const omp::Name& name) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash(parent, name) & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    const Node& n = nodes_[slots_[i]];
    if (n.parent == parent && n.name == name) return slots_[i];
  }
  if (nodes_.size() >= std::numeric_limits<uint32_t>::max())
    throw std::length_error("call tree: more than 4 billion nodes");
  const auto id = uint32_t(nodes_.size());
  Node n;
  n.name = name;
  n.parent = uint32_t(parent);
  nodes_.push_back(n);
  Node& up = nodes_[parent];
  if (up.last_child != 0)
    nodes_[up.last_child].next_sibling = id;
  else
    up.first_child = id;
  up.last_child = id;
  slots_[i] = id;
  if (2 * nodes_.size() > slots_.size()) grow();  // at most half full: short probes
  return id;
}

void NameTrie::grow() {
  std::vector<uint32_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (uint32_t id : old) {
    if (id == 0) continue;
    size_t i = hash(nodes_[id].parent, nodes_[id].name) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = id;
  }
}

}  // namespace omprof::viewer
