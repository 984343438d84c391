#include "collector/handler/sample_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace omprof::handler {
namespace {

struct Table {
  explicit Table(uint32_t capacity, uint32_t frames)
      : memory(SampleTable::bytes_needed(capacity, frames)) {
    table.init(memory.data(), capacity, frames);
    table.clear();
  }
  std::vector<char> memory;
  SampleTable table;
};

TEST(SampleTable, AggregatesIdenticalStacksAndContexts) {
  Table t(16, 256);
  uint64_t a[] = {1, 2, 3}, b[] = {1, 2, 4};
  SampleContext ctx;
  EXPECT_TRUE(t.table.add(a, 3, 0, ctx, 1, 5));
  EXPECT_TRUE(t.table.add(a, 3, 0, ctx, 2, 10));
  EXPECT_TRUE(t.table.add(b, 3, 0, ctx, 1, 5));
  SampleContext other = ctx;
  other.omp_state = 0x10;
  EXPECT_TRUE(t.table.add(a, 3, 0, other, 1, 5));
  EXPECT_TRUE(t.table.add(a, 3, kStackTruncated, ctx, 1, 5));  // a different entry
  EXPECT_EQ(t.table.used(), 4u);
  uint64_t count = 0, weight = 0;
  for (uint32_t i = 0; i < t.table.capacity(); ++i) {
    const SampleEntry& e = t.table.entry(i);
    if (e.hash == 0) continue;
    count += e.count;
    weight += e.weight_ns;
    if (e.depth == 3 && t.table.frames_of(e)[2] == 3 && e.ctx == ctx && e.flags == 0) {
      EXPECT_EQ(e.count, 3u);
      EXPECT_EQ(e.weight_ns, 15u);
    }
  }
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(weight, 30u);
}

TEST(SampleTable, CapacityCapCountsDropsWithTheirWeight) {
  Table t(16, 1024);  // at most 12 entries (load factor 3/4)
  SampleContext ctx;
  uint64_t accepted = 0;
  for (uint64_t i = 0; i < 40; ++i) {
    uint64_t frames[] = {i, 100};
    accepted += t.table.add(frames, 2, 0, ctx, 1, 7);
  }
  EXPECT_EQ(accepted, 12u);
  EXPECT_EQ(t.table.used(), 12u);
  EXPECT_EQ(t.table.dropped_samples(), 28u);
  EXPECT_EQ(t.table.dropped_weight_ns(), 28u * 7);
  // A stack already present still aggregates when the table is full.
  uint64_t first[] = {0, 100};
  EXPECT_TRUE(t.table.add(first, 2, 0, ctx, 1, 7));
}

TEST(SampleTable, FramePoolCapCountsDrops) {
  Table t(64, 10);
  SampleContext ctx;
  uint64_t deep[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_TRUE(t.table.add(deep, 8, 0, ctx, 1, 1));
  deep[0] = 9;
  EXPECT_FALSE(t.table.add(deep, 8, 0, ctx, 1, 1));
  EXPECT_EQ(t.table.dropped_samples(), 1u);
}

TEST(SampleTable, ClearForgetsEverything) {
  Table t(16, 64);
  uint64_t a[] = {1};
  t.table.add(a, 1, 0, SampleContext{}, 1, 1);
  t.table.clear();
  EXPECT_EQ(t.table.used(), 0u);
  for (uint32_t i = 0; i < t.table.capacity(); ++i) EXPECT_EQ(t.table.entry(i).hash, 0u);
}

// add_site (exact waits): the same entries add() makes, whether the key is in its cache of
// recent sites or not, and keys that share a cache slot evict each other without loss.
TEST(SampleTable, SitesAggregateLikeStacksOfOneFrame) {
  Table t(64, 256);
  SampleContext a;
  a.omp_state = 0x13;
  a.fork_id = 7;
  SampleContext b = a;
  b.omp_thread_num = 1;
  for (int round = 0; round < 3; ++round) {
    for (uint64_t site = 0; site < 40; site += 4) {  // 0: no site (a stack of depth 0)
      EXPECT_TRUE(t.table.add_site(site, a, 1, 10));
      EXPECT_TRUE(t.table.add_site(site, b, 2, 5, 3));
    }
  }
  const uint64_t frame[1] = {8};
  EXPECT_TRUE(t.table.add(frame, 1, 0, a, 1, 10));  // the same entry as add_site(8, a)
  EXPECT_EQ(t.table.used(), 20u);
  for (uint32_t k = 0; k < t.table.used(); ++k) {
    const SampleEntry& e = t.table.used_entry(k);
    const uint64_t site = e.depth ? t.table.frames_of(e)[0] : 0;
    EXPECT_EQ(e.depth, site ? 1 : 0);
    EXPECT_EQ(e.flags, 0);
    if (e.ctx == a) {
      EXPECT_EQ(e.count, site == 8 ? 4u : 3u);
      EXPECT_EQ(e.weight_ns, site == 8 ? 40u : 30u);
    } else {
      EXPECT_EQ(e.ctx, b);
      EXPECT_EQ(e.count, 6u);
      EXPECT_EQ(e.weight_ns, 15u);
      EXPECT_EQ(e.cpu_ns, 9u);
    }
  }
}

TEST(SampleTable, SitesThatDoNotFitAreCountedAsDropped) {
  Table t(4, 64);  // 3 entries
  SampleContext ctx;
  for (uint64_t site = 1; site <= 5; ++site) t.table.add_site(site, ctx, 1, 2);
  EXPECT_EQ(t.table.used(), 3u);
  EXPECT_EQ(t.table.dropped_samples(), 2u);
  EXPECT_EQ(t.table.dropped_weight_ns(), 4u);
  EXPECT_TRUE(t.table.add_site(1, ctx, 1, 2));  // still aggregates
  t.table.clear();
  EXPECT_TRUE(t.table.add_site(1, ctx, 1, 2));  // the cache forgot the cleared slots
  EXPECT_EQ(t.table.used(), 1u);
  EXPECT_EQ(t.table.used_entry(0).count, 1u);
}

}  // namespace
}  // namespace omprof::handler
