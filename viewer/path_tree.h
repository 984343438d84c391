// A call tree built from paths (root first) with inclusive, self, work and wait time per node:
// the top-down tree of `report --tree`, and the trees of `--callees F` (rooted at F) and
// `--callers F` (F's callers, upwards).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "omp/name.h"
#include "viewer/name_trie.h"
#include "viewer/table.h"

namespace omprof::viewer {

class PathTree {
 public:
  PathTree() : counts_(1) {}
  // The time of one path, root first (the root itself not included).
  // `idle_ns`: idle workers' time blamed on the path (ViewSample::idle_blame_ns); the table has
  // an idle_s column once any path has some.
  void add(const std::vector<omp::Name>& path, uint64_t work_ns, uint64_t wait_ns,
           uint64_t idle_ns = 0);
  // Depth-first, children by inclusive time; nodes below `min_percent` of `total_ns` pruned.
  // Text: incl_s, incl%, self_s, wait%, the indented name; CSV: node_id, parent_id, depth,
  // incl_s, incl%, self_s, work_s, wait_s, name (ids: 0 is the root, which has no row); then
  // idle_s (inclusive), where some path has idle time blamed on it.
  // `root_label`: the name of the top node's row when the tree has a single one (callers and
  // callees: the function), else the name it was added with.
  Table table(double min_percent, uint64_t total_ns, Format format,
              const std::string& name_column = "call tree",
              const std::string& root_label = "") const;
  uint64_t root_incl() const { return counts_[0].incl; }

 private:
  struct Counts {
    uint64_t incl = 0, self = 0, work = 0, wait = 0, idle = 0;
  };
  NameTrie trie_;
  std::vector<Counts> counts_;  // by node
  bool any_idle_ = false;
};

}  // namespace omprof::viewer
