// Per-rank quantities reduced over MPI ranks as they are read: for each key (an OpenMP state, a
// parallel construct), the ranks that had it, the sum, and the min, average and max over all
// ranks read with the ranks of min and max. A rank without the key counts 0 here: a rank that
// never waited at a barrier waited 0 s (unlike a function or region a rank never ran, which the
// flat and regions views leave out). Memory grows with the keys, not with ranks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "viewer/table.h"

namespace omprof::viewer {

class RankSpread {
 public:
  // One rank's values by key (one call per rank); `label` is shown for the key (e.g. its class).
  void add_rank(int rank, const std::map<std::string, std::pair<std::string, uint64_t>>& values);
  // Columns: <key column>, <label column> (none if ""), ranks (that had the key), sum_s, min_s,
  // min_rank, avg_s, max_s, max_rank, imbalance ((max - avg) / max); rows by sum, largest first.
  Table table(const std::string& key_column, const std::string& label_column) const;

 private:
  struct Row {
    std::string label;
    int64_t ranks = 0, min_rank = -1, max_rank = -1;
    uint64_t sum = 0, min = 0, max = 0;
    int64_t seen_in = 0;  // ranks_ when last updated
  };
  std::map<std::string, Row> rows_;
  std::vector<int> rank_ids_;  // in reading order
  int64_t ranks_ = 0;
};

}  // namespace omprof::viewer
