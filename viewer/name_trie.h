// The nodes of a call tree, keyed by their path of names. Node 0 is the root. A child is found
// by (parent, name) in one open-addressing table for the whole tree: a map of children per node
// cost an allocation per node and string compares at every step, which made the trees of large
// profiles (millions of nodes) the viewer's main cost. Children keep the order they came in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "omp/name.h"

namespace omprof::viewer {

class NameTrie {
 public:
  NameTrie();
  // The child of `parent` named `name`, added if new.
  size_t child(size_t parent, const omp::Name& name);
  size_t size() const { return nodes_.size(); }
  const omp::Name& name(size_t n) const { return nodes_[n].name; }
  size_t parent(size_t n) const { return nodes_[n].parent; }
  template <typename F>
  void for_each_child(size_t n, F f) const {
    for (uint32_t c = nodes_[n].first_child; c != 0; c = nodes_[c].next_sibling) f(size_t(c));
  }

 private:
  struct Node {
    omp::Name name;
    uint32_t parent = 0, first_child = 0, last_child = 0, next_sibling = 0;
  };
  static size_t hash(size_t parent, const omp::Name& name);
  void grow();
  std::vector<Node> nodes_;
  std::vector<uint32_t> slots_;  // node ids (0: empty; the root is nobody's child)
};

}  // namespace omprof::viewer
