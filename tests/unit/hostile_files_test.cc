// Files omprof never writes, built to make the reader and the viewer allocate, recurse or wrap
// (issue 7, defects 6 and 7): each must be a one-line error, or a correct report, never a crash.
#include <gtest/gtest.h>

#include <sstream>

#include "proto/profile_reader.h"
#include "stream_builder.h"
#include "viewer/regions_view.h"
#include "viewer/report.h"

namespace omprof {
namespace {

using test::error_of;
using test::sample_stream;
using test::StreamBuilder;

wire::Encoder sample(uint64_t stack, uint64_t count, uint64_t weight, uint64_t region = 0) {
  wire::Encoder s;
  s.u64(1, stack);
  s.u64(2, count);
  s.u64(3, weight);
  s.u64(7, region);
  return s;
}

void add_thread_samples(StreamBuilder& s, const std::vector<wire::Encoder>& samples) {
  wire::Encoder th;
  th.u64(1, 0);
  for (const auto& smp : samples) th.message(7, smp);
  s.add(7, th);
}

TEST(HostileFiles, AnIdFarBeyondTheFileIsAnErrorNotAnAllocation) {
  for (const uint64_t id : {uint64_t(1) << 32, uint64_t(50000000), uint64_t(4)}) {
    StreamBuilder s = sample_stream();
    wire::Encoder loc;
    loc.u64(1, id);
    loc.u64(2, 1);
    s.add(5, loc);
    s.trailer();
    EXPECT_EQ(error_of(s.bytes),
              "f: corrupt profile: location id " + std::to_string(id) + " where 3 was due");
  }
}

TEST(HostileFiles, ParentsMustComeBeforeTheirChildren) {
  StreamBuilder regions = sample_stream();
  wire::Encoder node;
  node.u64(1, 1);
  node.u64(2, 1);  // its own parent: a loop
  node.u64(3, 1);
  regions.add(9, node);
  regions.trailer();
  EXPECT_EQ(error_of(regions.bytes), "f: corrupt profile: region table");

  StreamBuilder forks = sample_stream();
  wire::Encoder fork;
  fork.u64(1, 2);
  fork.u64(2, 2);
  forks.add(8, fork);
  forks.trailer();
  EXPECT_EQ(error_of(forks.bytes), "f: corrupt profile: fork record table");
}

// Found by the fuzzer: an exact wait whose stack id is 0 crashed the viewer's model.
TEST(HostileFiles, AWaitWithoutAStackIsAnError) {
  StreamBuilder s = sample_stream();
  wire::Encoder th, wait;
  th.u64(1, 1);
  th.u64(2, 43);
  wait.u64(2, 1);        // count; stack_id (field 1) left 0
  wait.u64(3, 1000000);  // weight
  wait.u64(4, 0x13);     // wait_barrier_implicit
  th.message(15, wait);
  s.add(7, th);
  s.trailer();
  EXPECT_EQ(error_of(s.bytes), "f: corrupt profile: wait refers to a missing stack or region");
}

TEST(HostileFiles, CountsThatWouldWrapAreAnError) {
  StreamBuilder s = sample_stream();
  add_thread_samples(s, {sample(1, 1, uint64_t(1) << 63), sample(1, 1, uint64_t(1) << 63)});
  s.trailer();
  EXPECT_EQ(error_of(s.bytes), "f: corrupt profile: sample counts or weights overflow");
  StreamBuilder counts = sample_stream();
  add_thread_samples(counts, {sample(1, ~uint64_t(0), 1)});
  counts.trailer();
  EXPECT_EQ(error_of(counts.bytes), "f: corrupt profile: sample counts or weights overflow");
}

// 200,000 nested regions, one sample in the innermost: every enclosing region, the outermost
// too, includes it (the viewer used to walk at most 1,024 parents, and recursed per level).
TEST(HostileFiles, DeepRegionNestingIsCountedAtEveryLevel) {
  constexpr uint64_t kDepth = 200000;
  StreamBuilder s = sample_stream();
  for (uint64_t id = 1; id <= kDepth; ++id) {
    wire::Encoder node;
    node.u64(1, id);
    node.u64(2, id - 1);
    node.u64(3, 2);  // "work"
    s.add(9, node);
  }
  wire::Encoder stats;
  stats.u64(1, kDepth);
  stats.u64(2, 0);
  stats.i64(3, 1);
  stats.i64(4, 1000);
  s.add(10, stats);
  add_thread_samples(s, {sample(1, 1, 7000000, kDepth)});
  s.trailer();
  format::Profile p = format::parse_profile(s.bytes, "deep.omprof");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  std::vector<viewer::RegionRow> rows = viewer::region_rows(m);
  ASSERT_EQ(rows.size(), kDepth + 1);
  EXPECT_EQ(rows[1].timing.node, 1u);
  EXPECT_EQ(rows[1].work_ns, 7000000u);
  EXPECT_EQ(rows.back().timing.node, kDepth);
  EXPECT_EQ(rows.back().timing.depth, int(kDepth - 1));
  std::ostringstream csv;
  viewer::region_tree_table(m, viewer::Format::kCsv).print(csv, viewer::Format::kCsv);
  // One short row per region: ids, not paths.
  EXPECT_LT(csv.str().size(), size_t(kDepth) * 200);
}

// A 100,000-frame stack: every view works and the tree CSV stays linear in size.
TEST(HostileFiles, DeepStacksInEveryView) {
  constexpr size_t kFrames = 100000;
  StreamBuilder s = sample_stream();
  wire::Encoder st;
  std::vector<uint64_t> locs;
  for (size_t i = 0; i < kFrames; ++i) locs.push_back(1 + i % 2);
  st.u64(1, 2);
  st.packed(2, locs.begin(), locs.end());
  s.add(6, st);
  add_thread_samples(s, {sample(2, 1, 5000000)});
  s.trailer();
  format::Profile p = format::parse_profile(s.bytes, "deep.omprof");
  for (const omp::View view : {omp::View::kUser, omp::View::kExpert, omp::View::kMachine}) {
    viewer::Model m = viewer::build_model(p, view);
    std::ostringstream out;
    viewer::flat_table(m, 20, viewer::Format::kText).print(out, viewer::Format::kText);
    viewer::tree_table(m, 0.0, viewer::Format::kText).print(out, viewer::Format::kText);
    std::ostringstream csv;
    viewer::tree_table(m, 0.0, viewer::Format::kCsv).print(csv, viewer::Format::kCsv);
    EXPECT_LT(csv.str().size(), kFrames * 200);
  }
}

}  // namespace
}  // namespace omprof
