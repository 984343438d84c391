#include "viewer/rank_spread.h"

#include <gtest/gtest.h>

#include <sstream>

namespace omprof::viewer {
namespace {

using Values = std::map<std::string, std::pair<std::string, uint64_t>>;

// The CSV rows of a table, each split at commas (no quoted cells here).
std::vector<std::vector<std::string>> rows_of(const Table& t) {
  std::ostringstream out;
  t.print(out, Format::kCsv);
  std::istringstream lines(out.str());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    std::string cell;
    while (std::getline(cs, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// A rank without a key counts 0, whether it came before the first rank that had the key or
// after; min and max name their ranks; rows come by sum.
TEST(RankSpread, AbsentKeysCountZeroAndExtremesNameTheirRanks) {
  RankSpread s;
  s.add_rank(0, Values{{"barrier", {"wait", 2000000}}});
  s.add_rank(1, Values{{"barrier", {"wait", 6000000}}, {"lock", {"wait", 9000000}}});
  s.add_rank(2, Values{{"barrier", {"wait", 4000000}}});
  const auto rows = rows_of(s.table("state", "class"));
  ASSERT_EQ(rows.size(), 2u);
  // state, class, ranks, sum_s, min_s, min_rank, avg_s, max_s, max_rank, imbalance
  EXPECT_EQ(rows[0], (std::vector<std::string>{"barrier", "wait", "3", "0.012", "0.002", "0",
                                               "0.004", "0.006", "1", "0.333"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"lock", "wait", "1", "0.009", "0.000", "0", "0.003",
                                               "0.009", "1", "0.667"}));
  // Without a label column.
  EXPECT_EQ(rows_of(s.table("construct", ""))[0].size(), 9u);
}

}  // namespace
}  // namespace omprof::viewer
