#include "viewer/rank_spread.h"

#include <fmt/format.h>

#include <algorithm>

namespace omprof::viewer {

namespace {
constexpr uint64_t kNone = ~uint64_t(0);
}  // namespace

void RankSpread::add_rank(int rank,
                          const std::map<std::string, std::pair<std::string, uint64_t>>& values) {
  ++ranks_;
  rank_ids_.push_back(rank);
  // A key first seen now had 0 on every earlier rank: its min is 0, at the first rank read.
  for (const auto& [key, value] : values) {
    auto [it, added] = rows_.try_emplace(key);
    Row& r = it->second;
    if (added) {
      r.label = value.first;
      if (ranks_ > 1) {
        r.min = 0;
        r.min_rank = rank_ids_.front();
      } else {
        r.min = kNone;
      }
    }
    const uint64_t ns = value.second;
    ++r.ranks;
    r.sum += ns;
    if (r.min == kNone || ns < r.min) {
      r.min = ns;
      r.min_rank = rank;
    }
    if (r.max_rank < 0 || ns > r.max) {
      r.max = ns;
      r.max_rank = rank;
    }
    r.seen_in = ranks_;
  }
  // Keys this rank did not have: 0 here.
  for (auto& [key, r] : rows_) {
    if (r.seen_in == ranks_) continue;
    if (r.min > 0) {
      r.min = 0;
      r.min_rank = rank;
    }
    r.seen_in = ranks_;
  }
}

Table RankSpread::table(const std::string& key_column, const std::string& label_column) const {
  std::vector<std::string> columns = {"<" + key_column};
  if (!label_column.empty()) columns.push_back("<" + label_column);
  for (const char* c :
       {"ranks", "sum_s", "min_s", "min_rank", "avg_s", "max_s", "max_rank", "imbalance"})
    columns.push_back(c);
  Table t(columns);
  std::vector<const std::pair<const std::string, Row>*> order;
  for (const auto& row : rows_) order.push_back(&row);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->second.sum > b->second.sum; });
  for (const auto* entry : order) {
    const Row& r = entry->second;
    const double avg = ranks_ ? double(r.sum) / double(ranks_) : 0;
    std::vector<std::string> cells = {entry->first};
    if (!label_column.empty()) cells.push_back(r.label);
    for (std::string cell :
         {std::to_string(r.ranks), seconds(r.sum), seconds(r.min), std::to_string(r.min_rank),
          seconds(avg), seconds(r.max), std::to_string(r.max_rank),
          r.max > 0 ? fmt::format("{:.3f}", (double(r.max) - avg) / double(r.max)) : "0.000"})
      cells.push_back(std::move(cell));
    t.row(cells);
  }
  return t;
}

}  // namespace omprof::viewer
