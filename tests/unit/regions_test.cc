// The explicit-region contract with injected clocks: nesting, context sensitivity, self time,
// mismatch modes (the repair algorithm's exact result), names, reset, tokens, summaries.
#include <gtest/gtest.h>

#include <sstream>

#include "regions/name_cache.h"
#include "regions/names.h"
#include "regions/off_cpu.h"
#include "regions/registry.h"
#include "regions/summary.h"
#include "regions/thread_timer.h"

namespace omprof::regions {
namespace {

Timestamp at(int64_t wall, int64_t cpu = -1) {
  return {wall, cpu < 0 ? wall : cpu};
}

struct Fixture {
  Registry reg;
  ThreadTimer t{reg, 0};
  int32_t id(const char* n) { return reg.intern(n); }
  uint32_t node(std::initializer_list<const char*> path) {
    uint32_t n = 0;
    for (const char* p : path) n = reg.child(n, reg.intern(p));
    return n;
  }
  NodeSnapshot snap(uint32_t node, int64_t now) {
    for (const auto& s : t.snapshot(at(now)))
      if (s.node == node) return s;
    return NodeSnapshot{};
  }
};

TEST(Regions, NestingContextsAndSelfTime) {
  Fixture f;
  ASSERT_EQ(f.t.begin(f.id("a"), at(0)), kSuccess);
  ASSERT_EQ(f.t.begin(f.id("b"), at(10)), kSuccess);
  ASSERT_EQ(f.t.end(f.id("b"), at(40), MismatchMode::kStrict), kSuccess);
  ASSERT_EQ(f.t.end(f.id("a"), at(100), MismatchMode::kStrict), kSuccess);
  ASSERT_EQ(f.t.begin(f.id("c"), at(100)), kSuccess);
  ASSERT_EQ(f.t.begin(f.id("b"), at(110)), kSuccess);  // same name, other parent
  ASSERT_EQ(f.t.end(f.id("b"), at(115), MismatchMode::kStrict), kSuccess);
  ASSERT_EQ(f.t.end(f.id("c"), at(120), MismatchMode::kStrict), kSuccess);
  const auto a = f.snap(f.node({"a"}), 200), ab = f.snap(f.node({"a", "b"}), 200),
             cb = f.snap(f.node({"c", "b"}), 200);
  EXPECT_EQ(a.wall_ns, 100);
  EXPECT_EQ(a.self_wall_ns, 70);
  EXPECT_EQ(ab.wall_ns, 30);
  EXPECT_EQ(cb.wall_ns, 5);
  EXPECT_NE(f.node({"a", "b"}), f.node({"c", "b"}));
  EXPECT_EQ(a.calls, 1);
}

// With a counter source (--region-counters), regions count events as they time CPU: inclusive
// over their closed and open activations, self without their nested regions; a repaired
// mismatch closes and restarts activations at the one reading.
TEST(Regions, CountersFromTheThreadsReadingsInclusiveAndSelf) {
  Fixture f;
  int64_t counts[kCounterSlots] = {};
  f.t.set_counter_source(counts);
  auto read = [&](int64_t first, int64_t second) {
    counts[0] = first;
    counts[1] = second;
  };
  read(10, 1);
  ASSERT_EQ(f.t.begin(f.id("a"), at(0)), kSuccess);
  read(15, 1);
  ASSERT_EQ(f.t.begin(f.id("b"), at(10)), kSuccess);
  read(25, 4);
  ASSERT_EQ(f.t.end(f.id("b"), at(20), MismatchMode::kStrict), kSuccess);
  read(40, 4);
  ASSERT_EQ(f.t.end(f.id("a"), at(30), MismatchMode::kStrict), kSuccess);
  const auto a = f.snap(f.node({"a"}), 50), ab = f.snap(f.node({"a", "b"}), 50);
  EXPECT_EQ(a.counters[0], 30);
  EXPECT_EQ(a.self_counters[0], 20);
  EXPECT_EQ(a.counters[1], 3);
  EXPECT_EQ(a.self_counters[1], 0);
  EXPECT_EQ(ab.counters[0], 10);
  EXPECT_EQ(ab.self_counters[0], 10);
  // An open activation counts up to the snapshot's reading.
  ASSERT_EQ(f.t.begin(f.id("c"), at(60)), kSuccess);
  read(47, 4);
  EXPECT_EQ(f.snap(f.node({"c"}), 70).counters[0], 7);
  // c > d > e, then c ends (repair): d and e closed at 50 and restarted under the root.
  ASSERT_EQ(f.t.begin(f.id("d"), at(70)), kSuccess);
  read(50, 4);
  ASSERT_EQ(f.t.end(f.id("c"), at(80), MismatchMode::kRepair), kSuccess);
  read(53, 4);
  ASSERT_EQ(f.t.end(f.id("d"), at(90), MismatchMode::kStrict), kSuccess);
  EXPECT_EQ(f.snap(f.node({"c"}), 95).counters[0], 10);
  EXPECT_EQ(f.snap(f.node({"c", "d"}), 95).counters[0], 3);
  EXPECT_EQ(f.snap(f.node({"d"}), 95).counters[0], 3) << "the continuation from the repair";
  // Without a source, nothing is counted.
  Fixture plain;
  ASSERT_EQ(plain.t.begin(plain.id("a"), at(0)), kSuccess);
  ASSERT_EQ(plain.t.end(plain.id("a"), at(5), MismatchMode::kStrict), kSuccess);
  EXPECT_EQ(plain.snap(plain.node({"a"}), 10).counters[0], 0);
}

TEST(Regions, CallCountsAreSixtyFourBit) {
  Fixture f;
  for (int i = 0; i < 1000; ++i) {
    f.t.begin(f.id("x"), at(i));
    f.t.end(f.id("x"), at(i + 1), MismatchMode::kStrict);
  }
  EXPECT_EQ(f.snap(f.node({"x"}), 2000).calls, 1000);
  static_assert(sizeof(NodeSnapshot::calls) == 8, "calls are 64-bit");
}

TEST(Regions, StrictMismatchChangesNothing) {
  Fixture f;
  f.t.begin(f.id("a"), at(0));
  f.t.begin(f.id("b"), at(10));
  bool repaired = true;
  EXPECT_EQ(f.t.end(f.id("a"), at(20), MismatchMode::kStrict, &repaired), kMismatch);
  EXPECT_FALSE(repaired);
  EXPECT_EQ(f.t.depth(), 2u);
  EXPECT_EQ(f.t.current_node(), f.node({"a", "b"}));
  EXPECT_EQ(f.t.end(f.id("b"), at(30), MismatchMode::kStrict), kSuccess);
  EXPECT_EQ(f.t.end(f.id("a"), at(40), MismatchMode::kStrict), kSuccess);
  EXPECT_EQ(f.snap(f.node({"a"}), 50).wall_ns, 40);
  EXPECT_EQ(f.snap(f.node({"a", "b"}), 50).wall_ns, 20);
}

TEST(Regions, RepairAlgorithmExactResult) {
  for (MismatchMode mode : {MismatchMode::kWarn, MismatchMode::kRepair}) {
    Fixture f;
    f.t.begin(f.id("a"), at(0));
    f.t.begin(f.id("b"), at(10));
    f.t.begin(f.id("c"), at(20));
    bool repaired = false;
    // One timestamp (50): c and b are stopped, a is stopped, then b and c restart under a's
    // parent (the root) in their original order, as continuations.
    ASSERT_EQ(f.t.end(f.id("a"), at(50), mode, &repaired), kSuccess);
    EXPECT_TRUE(repaired);
    EXPECT_EQ(f.t.depth(), 2u);
    EXPECT_EQ(f.t.current_node(), f.node({"b", "c"}));
    ASSERT_EQ(f.t.end(f.id("c"), at(60), mode), kSuccess);
    ASSERT_EQ(f.t.end(f.id("b"), at(70), mode), kSuccess);
    auto s = [&](std::initializer_list<const char*> p) { return f.snap(f.node(p), 100); };
    EXPECT_EQ(s({"a"}).wall_ns, 50);
    EXPECT_EQ(s({"a", "b"}).wall_ns, 40);
    EXPECT_EQ(s({"a", "b", "c"}).wall_ns, 30);
    EXPECT_EQ(s({"b"}).wall_ns, 20);
    EXPECT_EQ(s({"b", "c"}).wall_ns, 10);
    EXPECT_EQ(s({"a"}).calls, 1);
    EXPECT_EQ(s({"a", "b", "c"}).calls, 1);
    EXPECT_EQ(s({"b"}).calls, 0);  // continuations are not user calls
    EXPECT_EQ(s({"b", "c"}).calls, 0);
  }
}

TEST(Regions, EndingARegionThatIsNotOpenIsAMismatchInEveryMode) {
  for (MismatchMode mode : {MismatchMode::kStrict, MismatchMode::kWarn, MismatchMode::kRepair}) {
    Fixture f;
    EXPECT_EQ(f.t.end(f.id("a"), at(0), mode), kMismatch);
    f.t.begin(f.id("a"), at(0));
    EXPECT_EQ(f.t.end(f.id("zzz"), at(5), mode), kMismatch);
    EXPECT_EQ(f.t.depth(), 1u);
  }
}

TEST(Regions, TokensOwnExactlyOneActivation) {
  Fixture f;
  uint64_t outer = 0, inner = 0;
  f.t.begin(f.id("x"), at(0), &outer);
  f.t.begin(f.id("x"), at(5), &inner);  // same name nested: a different activation
  EXPECT_NE(outer, inner);
  EXPECT_EQ(f.t.end_token(outer, at(6)), kMismatch);  // not innermost: nothing changes
  EXPECT_EQ(f.t.depth(), 2u);
  EXPECT_EQ(f.t.end_token(inner, at(10)), kSuccess);
  EXPECT_EQ(f.t.end_token(inner, at(11)), kMismatch);  // stale
  EXPECT_EQ(f.t.end_token(outer, at(20)), kSuccess);
  // A guard whose activation was ended by hand is stale.
  uint64_t g = 0;
  f.t.begin(f.id("y"), at(30), &g);
  f.t.end(f.id("y"), at(31), MismatchMode::kStrict);
  f.t.begin(f.id("y"), at(32));  // a new activation of the same name
  EXPECT_EQ(f.t.end_token(g, at(33)), kMismatch);
  EXPECT_EQ(f.t.depth(), 1u);
  // A repaired-away activation is stale too.
  Fixture r;
  uint64_t tb = 0;
  r.t.begin(r.id("a"), at(0));
  r.t.begin(r.id("b"), at(1), &tb);
  r.t.end(r.id("a"), at(2), MismatchMode::kRepair);
  EXPECT_EQ(r.t.end_token(tb, at(3)), kMismatch);
}

TEST(Regions, ResetRefusesOpenRegionsThenZeroes) {
  Fixture f;
  f.t.begin(f.id("a"), at(0));
  EXPECT_EQ(f.t.reset(), kActive);
  EXPECT_EQ(f.t.depth(), 1u);
  f.t.end(f.id("a"), at(10), MismatchMode::kStrict);
  EXPECT_EQ(f.snap(f.node({"a"}), 10).wall_ns, 10);
  EXPECT_EQ(f.t.reset(), kSuccess);
  EXPECT_EQ(f.snap(f.node({"a"}), 20).calls, 0);
  EXPECT_EQ(f.reg.intern("a"), f.id("a"));  // names and ids stay
}

TEST(Regions, LiveSnapshotIncludesOpenRegions) {
  Fixture f;
  f.t.begin(f.id("a"), at(0, 0));
  f.t.begin(f.id("b"), at(10, 5));
  const auto b = f.snap(f.node({"a", "b"}), 25);
  EXPECT_TRUE(b.active);
  EXPECT_EQ(b.wall_ns, 15);
  EXPECT_EQ(f.snap(f.node({"a"}), 25).self_wall_ns, 10);
  // Another thread's snapshot cannot read this thread's CPU clock.
  for (const auto& s : f.t.snapshot(at(25, 1000), false)) EXPECT_EQ(s.cpu_ns, 0);
}

TEST(Regions, InheritedBaseNestsWorkerRegions) {
  Registry reg;
  ThreadTimer master(reg, 0), worker(reg, 1);
  master.begin(reg.intern("solve"), at(0));
  worker.set_base(master.current_node());
  worker.begin(reg.intern("assemble"), at(1));
  EXPECT_EQ(reg.node(worker.current_node()).parent, master.current_node());
  worker.end(reg.intern("assemble"), at(2), MismatchMode::kStrict);
  EXPECT_EQ(worker.current_node(), master.current_node());
}

TEST(Names, ValidationPolicy) {
  std::string out;
  EXPECT_EQ(normalize_name("solve   ", out), kSuccess);
  EXPECT_EQ(out, "solve");
  EXPECT_EQ(normalize_name("a b", out), kSuccess);
  EXPECT_EQ(normalize_name("", out), kInvalidName);
  EXPECT_EQ(normalize_name("    ", out), kInvalidName);
  EXPECT_EQ(normalize_name(" lead", out), kInvalidName);
  EXPECT_EQ(normalize_name("tab\there", out), kInvalidName);
  EXPECT_EQ(normalize_name("bell\x07", out), kInvalidName);
  EXPECT_EQ(normalize_name("del\x7f", out), kInvalidName);
  EXPECT_EQ(normalize_name(nullptr, out), kInvalidName);
  std::string longname(5000, 'x');
  EXPECT_EQ(normalize_name(longname.c_str(), out), kSuccess);
  EXPECT_EQ(out.size(), 5000u);                               // never truncated
  EXPECT_EQ(normalize_name("r\xC3\xA9gion", out), kSuccess);  // UTF-8 is fine
}

TEST(Names, EscapingForTextReports) {
  EXPECT_EQ(escape_name("plain"), "plain");
  EXPECT_EQ(escape_name("back\\slash"), "back\\\\slash");
  EXPECT_EQ(escape_name("a\tb\nc\rd"), "a\\tb\\nc\\rd");
  EXPECT_EQ(escape_name("esc\x1b[31m"), "esc\\x1B[31m");
  EXPECT_EQ(escape_name("del\x7f"), "del\\x7F");
  EXPECT_EQ(escape_name("  lead"), "\\x20\\x20lead");
  EXPECT_EQ(escape_name(""), "<blank>");
  EXPECT_EQ(escape_name("   "), "<blank>");
  EXPECT_EQ(escape_name("r\xC3\xA9gion"), "r\xC3\xA9gion");
  EXPECT_EQ(escape_name("c1\xC2\x9B"), "c1\\xC2\\x9B");  // UTF-8 encoded C1 control
  EXPECT_EQ(escape_name("bad\xFF"), "bad\\xFF");
}

TEST(Status, NamesMatchTheContract) {
  EXPECT_STREQ(status_name(kSuccess), "OMPROF_SUCCESS");
  EXPECT_STREQ(status_name(kMismatch), "OMPROF_ERR_MISMATCH");
  EXPECT_STREQ(status_name(kInvalidName), "OMPROF_ERR_INVALID_NAME");
  EXPECT_EQ(int(kMpiIncon), 6);
  EXPECT_EQ(int(kIo), 7);
  EXPECT_STREQ(status_name(kReentered), "OMPROF_ERR_REENTERED");
  EXPECT_STREQ(status_name(99), "not an omprof status");  // never another status's name
  EXPECT_STREQ(status_name(-1), "not an omprof status");
}

// Inserting n distinct names visits O(n) slots in all (growth included): the cache counted its
// entries by scanning every slot on each insert, so 80,000 names took 4.5 s and 2 million never
// finished.
TEST(NameCache, InsertsCostConstantTimeAndFindWhatWasInserted) {
  NameCache cache;
  const int n = 200000;
  for (int i = 1; i <= n; ++i) {
    const std::string name = "region-" + std::to_string(i);
    cache.insert(NameCache::hash(name.data(), name.size()), name, i);
  }
  EXPECT_EQ(cache.size(), size_t(n));
  EXPECT_LT(cache.slots_visited(), uint64_t(10) * n);
  for (int i : {1, 77, 4096, n}) {
    const std::string name = "region-" + std::to_string(i);
    EXPECT_EQ(cache.find(NameCache::hash(name.data(), name.size()), name.data(), name.size()), i);
  }
  const std::string absent = "region-0";
  EXPECT_EQ(cache.find(NameCache::hash(absent.data(), absent.size()), absent.data(), 8), 0);
  // Only the first n bytes count: "region-12" finds "region-1" with n = 8.
  EXPECT_EQ(cache.find(NameCache::hash("region-12", 8), "region-12", 8), 1);
}

TEST(Summary, MergesThreadsWithStatistics) {
  Registry reg;
  ThreadTimer a(reg, 0), b(reg, 1);
  a.begin(reg.intern("solve"), at(0));
  b.set_base(a.current_node());
  b.begin(reg.intern("work,1"), at(0));
  b.end(reg.intern("work,1"), at(40), MismatchMode::kStrict);
  a.begin(reg.intern("work,1"), at(0));
  a.end(reg.intern("work,1"), at(80), MismatchMode::kStrict);
  a.end(reg.intern("solve"), at(100), MismatchMode::kStrict);
  std::vector<ThreadSnapshot> snaps = {{0, a.snapshot(at(100))}, {1, b.snapshot(at(100))}};
  auto rows = summarize(
      snaps, [&](uint32_t n) { return reg.node(n); }, [&](int32_t id) { return reg.name(id); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "solve");
  EXPECT_EQ(rows[0].threads, 1);
  EXPECT_EQ(rows[0].self_max_ns, 20);
  EXPECT_EQ(rows[1].name, "work,1");
  EXPECT_EQ(rows[1].parent, rows[0].node);
  EXPECT_EQ(rows[1].depth, 1);
  EXPECT_EQ(rows[1].threads, 2);
  EXPECT_EQ(rows[1].calls, 2);
  EXPECT_EQ(rows[1].wall_max_ns, 80);
  EXPECT_EQ(rows[1].wall_min_ns, 40);
  EXPECT_DOUBLE_EQ(rows[1].wall_avg_ns, 60);
  EXPECT_DOUBLE_EQ(rows[1].imbalance(), 0.25);
  std::ostringstream csv, text;
  write_csv(csv, SummaryHeader{1, 100, 2}, rows);
  EXPECT_NE(csv.str().find("2,1,1,\"work,1\",2,2,"), std::string::npos) << csv.str();
  write_text(text, SummaryHeader{1, 100, 2}, rows);
  EXPECT_NE(text.str().find("active regions: no"), std::string::npos);
  EXPECT_NE(text.str().find("  work,1"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace omprof::regions

namespace omprof::regions {
namespace {

TEST(OffCpu, RegionsGetTheirUnaccountedSelfTimeFirstAndTheRestGoesOutside) {
  // Node 1 is 100 ns of self wall with 40 accounted; node 2 is fully accounted; 100 off-CPU.
  OffCpuShares s = place_off_cpu(100, {{1, 100}, {2, 50}}, {{1, 40}, {2, 60}, {0, 10}});
  EXPECT_EQ(s.by_node, (std::map<uint64_t, uint64_t>{{1, 60}}));
  EXPECT_EQ(s.outside_ns, 40u);
  // Deficits beyond the budget share it in proportion, and all of it is placed.
  s = place_off_cpu(30, {{1, 100}, {2, 50}}, {{1, 0}, {2, 0}});
  EXPECT_EQ(s.by_node.at(1) + s.by_node.at(2), 30u);
  EXPECT_EQ(s.by_node.at(1), 20u);
  EXPECT_EQ(s.outside_ns, 0u);
  // A region whose samples exceed its self wall (sampling noise, 30 ns here) returns that excess
  // to the other regions' budget: node 2's full deficit fits, and nothing is left outside.
  s = place_off_cpu(50, {{1, 100}, {2, 80}}, {{1, 130}, {2, 0}});
  EXPECT_EQ(s.by_node, (std::map<uint64_t, uint64_t>{{2, 80}}));
  EXPECT_EQ(s.outside_ns, 0u);
  // No regions: everything outside.
  s = place_off_cpu(77, {}, {{0, 5}});
  EXPECT_TRUE(s.by_node.empty());
  EXPECT_EQ(s.outside_ns, 77u);
}

TEST(OffCpu, ProportionalPartsAddUpExactly) {
  const std::vector<uint64_t> parts = proportional_parts(1000, {1, 1, 1});
  EXPECT_EQ(parts, (std::vector<uint64_t>{333, 333, 334}));
  uint64_t sum = 0;
  for (uint64_t p : proportional_parts(123456789, {7, 0, 13, 99999, 1})) sum += p;
  EXPECT_EQ(sum, 123456789u);
}

}  // namespace
}  // namespace omprof::regions
