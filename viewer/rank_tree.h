// `omprof report DIR --tree` over several MPI ranks: one top-down call tree (user, expert or
// machine view) merged over the ranks, each node with the ranks that reached it and the min,
// average and max of its inclusive time over them (never zero-filled, as for regions), the rank
// of the max, and the sums of work and wait. Ranks are added one at a time, so memory grows with
// the merged tree's nodes, not with ranks x samples.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "viewer/model.h"
#include "viewer/table.h"

namespace omprof::viewer {

class RankTree {
 public:
  void add_rank(int rank, const Model& m);
  // Nodes below `min_percent` of the total over all ranks are pruned.
  Table table(double min_percent, Format format) const;
  int64_t ranks() const { return ranks_; }

 private:
  struct Node {
    std::string name;
    std::map<std::string, size_t> children;
    int64_t ranks = 0, max_rank = -1, min_rank = -1;
    double sum = 0, min = 0, max = 0, self = 0, work = 0, wait = 0;
  };
  size_t child(size_t parent, const std::string& name);

  std::vector<Node> nodes_{Node{"<root>", {}, 0, -1, -1, 0, 0, 0, 0, 0, 0}};
  int64_t ranks_ = 0;
};

}  // namespace omprof::viewer
