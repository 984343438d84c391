// The cross-rank summary's semantics (ranks/): the builder's attribution, the union over
// ranks without zero-filling, ties to the lowest rank, combination in any order, the POP
// efficiencies, and the .ompsum file read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>

#include "proto/mpi_calls.h"
#include "proto/state_codes.h"
#include "ranks/job_summary.h"
#include "ranks/rank_numbers.h"
#include "ranks/summary_file.h"
#include "viewer/ranks.h"
#include "viewer/summary_reader.h"

namespace omprof::ranks {
namespace {

constexpr uint32_t kWork = format::kWorkParallel;
constexpr uint32_t kBarrier = format::kWaitBarrierImplicit;
constexpr uint32_t kAllreduce = format::kMpiFirst + format::kMpi_Allreduce;

regions::SummaryRow row(uint32_t node, uint32_t parent, const std::string& name, int64_t calls,
                        int64_t wall_ns) {
  regions::SummaryRow r;
  r.node = node;
  r.parent = parent;
  r.name = name;
  r.calls = calls;
  r.wall_max_ns = wall_ns;
  r.self_max_ns = wall_ns / 2;
  return r;
}

// A profile's measurement: OMPT's exact waits or not, a CPU clock or the wall clock.
omp::Measurement measured(bool exact_waits, bool cpu_clock) {
  omp::Measurement m = exact_waits ? omp::ompt_measurement(true) : omp::sampled_measurement();
  m.cpu_clock = cpu_clock;
  return m;
}

TEST(RankBuilder, ExactWaitsReplaceTheirSamplesAndOffCpuTimeIsSpreadOverWork) {
  // CPU clock, exact waits: a thread alive 100 ms with 40 ms of work samples in region 1,
  // 20 ms of barrier samples (repeated by a 30 ms exact barrier wait) and a 10 ms MPI wait.
  RankBuilder b(measured(true, true), 100);
  b.begin_thread(0, 100);
  b.sample(kWork, 1, 4, 40);
  b.sample(kBarrier, 1, 2, 20);
  b.sample(kAllreduce, 1, 1, 10);  // repeats the exact MPI wait below
  b.wait(kBarrier, 1, 30);
  b.wait(kAllreduce, 1, 10);
  b.end_thread();
  const RankNumbers r = b.finish(3, {row(1, 0, "step", 5, 100)});
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.samples, 4u) << "only the samples that count";
  EXPECT_EQ(r.split.omp_wait_ns, 30u);
  EXPECT_EQ(r.split.mpi_wait_ns, 10u);
  EXPECT_EQ(r.split.work_ns, 60u) << "40 sampled + 20 off the CPU";
  const RankRegion& step = r.regions.at("step");
  EXPECT_EQ(step.split.work_ns, 60u);
  EXPECT_EQ(step.calls, 5);
}

TEST(RankBuilder, ThePopWindowLeavesMpiInitAndFinalizeOut) {
  // 30 ms in MPI_Init (returns at 31), work to 90, MPI_Finalize from 90 to 100.
  constexpr uint32_t kInit = format::kMpiFirst + format::kMpi_Init_thread;
  constexpr uint32_t kFinalize = format::kMpiFirst + format::kMpi_Finalize;
  RankBuilder b(measured(true, true), 100);
  b.set_window(31, 90);
  b.begin_thread(0, 100);
  b.sample(kWork, 0, 5, 50);
  b.sample(kInit, 0, 2, 20);  // repeats the exact wait
  b.wait(kInit, 0, 30);
  b.wait(kAllreduce, 0, 9);
  b.wait(kFinalize, 0, 10);
  b.end_thread();
  const RankNumbers r = b.finish(0, {});
  EXPECT_EQ(r.elapsed_ns, 59u);
  EXPECT_EQ(r.setup_ns, 40u);
  EXPECT_EQ(r.split.mpi_wait_ns, 9u) << "MPI_Init and MPI_Finalize are not MPI wait";
  EXPECT_EQ(r.split.work_ns, 51u) << "50 sampled + 1 off the CPU, none of the setup";
  // A window past the end of the run is clipped to it.
  RankBuilder c(measured(true, true), 100);
  c.set_window(120, 0);
  EXPECT_EQ(c.finish(0, {}).elapsed_ns, 0u);
}

TEST(RankBuilder, OffCpuTimeGoesToTheRegionThatSpentIt) {
  // Region 1 computes (40 sampled, 40 self wall), region 2 sleeps (30 self wall, no samples):
  // the 30 unaccounted go to region 2, none to region 1.
  RankBuilder b(measured(true, true), 70);
  b.begin_thread(0, 70);
  b.sample(kWork, 1, 4, 40);
  b.region_self_wall(1, 40);
  b.region_self_wall(2, 30);
  b.end_thread();
  const RankNumbers r = b.finish(0, {row(1, 0, "compute", 1, 40), row(2, 0, "nap", 1, 30)});
  EXPECT_EQ(r.regions.at("compute").split.work_ns, 40u);
  EXPECT_EQ(r.regions.at("nap").split.work_ns, 30u);
}

TEST(RankBuilder, NestedRegionsAreInclusiveAndNamedByPath) {
  RankBuilder b(measured(false, false), 100);
  b.begin_thread(0, 0);
  b.sample(kWork, 1, 1, 10);
  b.sample(kWork, 2, 1, 5);
  b.sample(kBarrier, 2, 1, 7);
  b.end_thread();
  const RankNumbers r = b.finish(0, {row(1, 0, "outer", 1, 50), row(2, 1, "inner", 3, 20)});
  EXPECT_EQ(r.regions.at("outer").split.work_ns, 15u);
  EXPECT_EQ(r.regions.at("outer").split.omp_wait_ns, 7u);
  EXPECT_EQ(r.regions.at("outer/inner").split.work_ns, 5u);
  EXPECT_EQ(r.regions.at("outer/inner").calls, 3);
}

RankNumbers rank(int n, uint64_t elapsed, uint64_t work, uint64_t mpi,
                 const std::map<std::string, uint64_t>& regions) {
  RankNumbers r;
  r.rank = n;
  r.elapsed_ns = elapsed;
  r.threads = 1;
  r.split.work_ns = work;
  r.split.mpi_wait_ns = mpi;
  for (const auto& [path, incl] : regions) {
    RankRegion& g = r.regions[path];
    g.incl_ns = incl;
    g.calls = 10;
    g.split.work_ns = incl;
  }
  return r;
}

TEST(JobSummary, UnionOverParticipatingRanksOnlyWithPopEfficiencies) {
  // Computation 1, 2, 3 s over 4 s each: LB = 2/3, CommE = 3/4.
  const std::vector<RankNumbers> ranks = {rank(0, 4000, 1000, 3000, {{"a", 100}, {"a/io", 10}}),
                                          rank(1, 4000, 2000, 2000, {{"a", 200}}),
                                          rank(2, 4000, 3000, 1000, {{"a", 300}, {"a/io", 30}})};
  const JobSummary s = summarize_ranks(ranks, 3);
  EXPECT_NEAR(s.eff.load_balance, 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.eff.communication, 0.75, 1e-12);
  EXPECT_NEAR(s.eff.parallel, 0.5, 1e-12);
  EXPECT_NEAR(s.eff.mpi_parallel, 0.5, 1e-12) << "time outside MPI: 1, 2, 3 of 4 s";
  EXPECT_NEAR(s.eff.omp_parallel, 1.0, 1e-12);
  ASSERT_EQ(s.regions.size(), 2u);
  const ReducedRegion& io = s.regions[1];
  EXPECT_EQ(io.path, "a/io");
  EXPECT_EQ(io.p.ranks, 2);
  EXPECT_EQ(io.p.incl_min, 10);
  EXPECT_EQ(io.p.incl_min_rank, 0);
  EXPECT_EQ(io.p.incl_max_rank, 2);
  EXPECT_EQ(io.avg(io.p.incl_sum), 20) << "rank 1 is absent, not zero";
  EXPECT_EQ(s.differing_ranks, std::vector<int64_t>{1});
}

TEST(JobSummary, TiesGoToTheLowestRankAndOrderDoesNotMatter) {
  std::vector<Partial> parts;
  for (int r = 0; r < 16; ++r) {
    RankRegion g;
    g.incl_ns = r % 4 == 1 ? 5 : 50;  // ranks 1, 5, 9, 13 tie for the minimum
    g.calls = r;
    g.split.work_ns = g.incl_ns;
    parts.push_back(region_partial(r, g));
  }
  std::mt19937 shuffle(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(parts.begin(), parts.end(), shuffle);
    Partial total;
    for (const Partial& p : parts) combine(p, total);
    EXPECT_EQ(total.ranks, 16);
    EXPECT_EQ(total.incl_min_rank, 1);
    EXPECT_EQ(total.incl_max_rank, 0);
    EXPECT_EQ(total.calls_min, 0);
    EXPECT_EQ(total.calls_max, 15);
    EXPECT_EQ(total.calls_sum, 120);
  }
  Partial empty, one = parts[0];
  combine(empty, one);
  EXPECT_EQ(one.ranks, 1) << "an absent rank changes nothing";
}

TEST(SummaryFile, ReadsBackWhatWasWrittenAndRejectsDamage) {
  const std::vector<RankNumbers> ranks = {rank(0, 4000, 1000, 3000, {{"a", 100}}),
                                          rank(1, 4000, 2000, 2000, {{"a", 200}, {"b", 7}})};
  const JobSummary s = summarize_ranks(ranks, 2);
  const std::string bytes = encode_summary_file(s, "/bin/app", 1234);
  const std::string path = testing::TempDir() + "/s.ompsum";
  std::ofstream(path, std::ios::binary) << bytes;
  const JobSummary back = viewer::read_summary_file(path);
  std::ostringstream a, b;
  write_regions_csv(a, s);
  write_regions_csv(b, back);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_EQ(back.differing_ranks, std::vector<int64_t>{0});
  for (size_t cut : {size_t(0), size_t(5), size_t(9), bytes.size() - 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
    EXPECT_THROW(viewer::read_summary_file(path), std::runtime_error) << cut;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "\x89OMPROF\n" << bytes.substr(8);
  EXPECT_THROW(viewer::read_summary_file(path), std::runtime_error);
  std::remove(path.c_str());
}

// The POP window: from MPI_Init's return to MPI_Finalize's call, to the end of the run (or of
// a live snapshot) without MPI_Finalize, the whole run without MPI; empty while the rank is
// still inside MPI_Init (its time so far is setup, not unused capacity).
TEST(PopWindow, FromMpiInitsReturnToFinalizeOrTheEnd) {
  constexpr uint64_t kRun = 1'000'000'000;
  EXPECT_EQ(pop_window(300, 900, kRun).ns(), 600u);
  EXPECT_EQ(pop_window(300, 0, kRun).start_ns, 300u);
  EXPECT_EQ(pop_window(300, 0, kRun).end_ns, kRun);
  EXPECT_EQ(pop_window(0, 0, kRun).ns(), kRun);
  EXPECT_EQ(pop_window(2 * kRun, 0, kRun).ns(), 0u);  // a damaged header: within the run
  format::Profile p;
  p.header.set_duration_ns(kRun);
  p.threads[0].set_now_state(format::mpi_state(format::kMpi_Recv));
  EXPECT_EQ(viewer::pop_window_of(p).ns(), kRun);  // no MPI facts: the whole run
  p.header.set_mpi_init_end_ns(300);
  EXPECT_EQ(viewer::pop_window_of(p).ns(), kRun - 300);
  p.header.set_mpi_init_end_ns(0);
  p.threads[0].set_now_state(format::mpi_state(format::kMpi_Init));
  EXPECT_EQ(viewer::pop_window_of(p).ns(), 0u);
  p.threads[0].set_now_state(format::mpi_state(format::kMpi_Init_thread));
  EXPECT_EQ(viewer::pop_window_of(p).ns(), 0u);
}

}  // namespace
}  // namespace omprof::ranks
