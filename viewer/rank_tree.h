// Call-path views of several MPI ranks, merged.
//
// `omprof report DIR --tree` over several MPI ranks: one top-down call tree (user, expert or
// machine view) merged over the ranks, each node with the ranks that reached it and the min,
// average and max of its inclusive time over them (never zero-filled, as for regions), the rank
// of the max, and the sums of work and wait. Ranks are added one at a time, so memory grows with
// the merged tree's nodes, not with ranks x samples.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "omp/name.h"
#include "viewer/model.h"
#include "viewer/name_trie.h"
#include "viewer/sort_key.h"
#include "viewer/table.h"

namespace omprof::viewer {

// `omprof report DIR --flat` over several ranks: per function, the ranks whose samples reached
// it, min/avg/max of its self time over them with the ranks of min and max, and sums of self,
// total, work and wait time. Sorted by summed self time.
class RankFlat {
 public:
  void add_rank(int rank, const Model& m);
  Table table(size_t top, Format format, SortKey sort = SortKey::kSelf) const;

 private:
  struct Row {
    omp::Name name, file;
    int64_t ranks = 0, min_rank = -1, max_rank = -1;
    double self_min = 0, self_max = 0, self = 0, total = 0, work = 0, wait = 0;
  };
  std::unordered_map<omp::Name, Row> rows_;
  int64_t ranks_ = 0;
  double all_ = 0;
};

class RankTree {
 public:
  void add_rank(int rank, const Model& m);
  // Nodes below `min_percent` of the total over all ranks are pruned.
  Table table(double min_percent, Format format) const;
  int64_t ranks() const { return ranks_; }

 private:
  struct Node {
    int64_t ranks = 0, max_rank = -1, min_rank = -1;
    double sum = 0, min = 0, max = 0, self = 0, work = 0, wait = 0;
    double rank_incl = 0;    // the rank being added: its inclusive time here
    int64_t rank_seen = -1;  // which rank rank_incl is of (ranks_ when added)
  };
  NameTrie trie_;
  std::vector<Node> nodes_{Node{}};  // by trie node
  int64_t ranks_ = 0;
};

}  // namespace omprof::viewer
