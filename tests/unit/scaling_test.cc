// The scaling model on runs built by hand (viewer/scaling.h): each factor of the metric tree
// from known class times, the identities, the errors, and what a series may not be.
#include "viewer/scaling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "proto/state_codes.h"

namespace omprof::viewer {
namespace {

constexpr double kS = 1e9;  // ns per second

// A run of `ranks` x `threads`, every rank `elapsed` seconds, its classes in seconds.
ScalingRun run_of(int ranks, uint32_t threads, double elapsed,
                  std::initializer_list<std::pair<LossClass, double>> classes) {
  ScalingRun r;
  r.input = std::to_string(ranks) + "x" + std::to_string(threads);
  r.program = "/bin/app";
  r.ranks = ranks;
  r.threads = threads;
  r.elapsed_ns = r.capacity_elapsed_ns = elapsed * kS;
  for (const auto& [c, s] : classes) r.all.add(c, s * kS);
  for (int i = 0; i < ranks; ++i)
    r.rank_outside_mpi_ns.push_back((r.all.total() - r.all.at(LossClass::kMpi)) / ranks / threads);
  return r;
}

TEST(ScalingModel, StatesFallIntoTheirClasses) {
  bool setup = false;
  EXPECT_EQ(loss_class(format::kWorkParallel, setup), LossClass::kWork);
  EXPECT_EQ(loss_class(format::kOffCpu, setup), LossClass::kOffCpu);
  EXPECT_EQ(loss_class(format::kIdle, setup), LossClass::kSerial);
  EXPECT_EQ(loss_class(format::kWaitBarrierImplicitParallel, setup), LossClass::kImbalance);
  EXPECT_EQ(loss_class(format::kOverheadBarrier, setup), LossClass::kOverhead);
  EXPECT_EQ(loss_class(format::kOverheadTask, setup), LossClass::kOverhead);
  EXPECT_EQ(loss_class(format::kWaitLock, setup), LossClass::kSync);
  EXPECT_EQ(loss_class(format::kWaitTaskwait, setup), LossClass::kSync);
  EXPECT_EQ(loss_class(format::kMpiFirst + 24, setup), LossClass::kMpi);  // Allreduce
  EXPECT_FALSE(setup);
  EXPECT_EQ(loss_class(format::kMpiFirst + 1, setup), LossClass::kMpi);  // Init
  EXPECT_TRUE(setup);
}

// 2 threads for 1 s: 1.2 s work, 0.2 s idle, 0.3 s barrier, 0.1 s overhead, 0.1 s lock, 0.1 s
// off the CPU. Each factor is the share of what the ones before it left.
TEST(ScalingModel, TheOpenMpFactorsTelescope) {
  const ScalingRun ref = run_of(1, 1, 1.3, {{LossClass::kWork, 1.3}});
  const ScalingRun r = run_of(1, 2, 1.0,
                              {{LossClass::kWork, 1.2},
                               {LossClass::kSerial, 0.2},
                               {LossClass::kImbalance, 0.3},
                               {LossClass::kOverhead, 0.1},
                               {LossClass::kSync, 0.1},
                               {LossClass::kOffCpu, 0.1}});
  const MetricTree m = metric_tree(r, ref, ScalingKind::kStrong);
  EXPECT_NEAR(m.serial.value, 1 - 0.2 / 2.0, 1e-12);
  EXPECT_NEAR(m.omp_load_balance.value, 1 - 0.3 / 1.8, 1e-12);
  EXPECT_NEAR(m.runtime.value, 1 - 0.1 / 1.5, 1e-12);
  EXPECT_NEAR(m.synchronization.value, 1.3 / 1.4, 1e-12);
  EXPECT_NEAR(m.on_cpu.value, 1.2 / 1.3, 1e-12);
  EXPECT_NEAR(m.mpi_parallel.value, 1, 1e-12);
  EXPECT_NEAR(m.parallel.value, 1.2 / 2.0, 1e-12);
  EXPECT_NEAR(m.parallel.value, m.mpi_parallel.value * m.omp_parallel.value * m.on_cpu.value,
              1e-12);
  EXPECT_NEAR(m.omp_parallel.value,
              m.serial.value * m.omp_load_balance.value * m.runtime.value * m.synchronization.value,
              1e-12);
  EXPECT_NEAR(m.computation.value, 1.3 / 1.2, 1e-12);
  EXPECT_NEAR(m.global.value, m.parallel.value * m.computation.value, 1e-12);
  EXPECT_NEAR(m.speedup, 1.3, 1e-12);
  // Measured times only: no sampling error.
  EXPECT_EQ(m.parallel.error, 0);
}

// Two ranks, one outside MPI for 1.0 s and the other for 0.5 s of a 1.0 s window.
TEST(ScalingModel, MpiLoadBalanceAndCommunication) {
  ScalingRun r = run_of(2, 1, 1.0, {{LossClass::kWork, 1.5}, {LossClass::kMpi, 0.5}});
  r.rank_outside_mpi_ns = {1.0 * kS, 0.5 * kS};
  const MetricTree m = metric_tree(r, r, ScalingKind::kStrong);
  EXPECT_NEAR(m.mpi_parallel.value, 0.75, 1e-12);
  EXPECT_NEAR(m.mpi_load_balance.value, 0.75, 1e-12);
  EXPECT_NEAR(m.communication.value, 1.0, 1e-12);
}

TEST(ScalingModel, WeakScalingComparesWorkPerCore) {
  const ScalingRun ref = run_of(1, 1, 1.0, {{LossClass::kWork, 1.0}});
  const ScalingRun r = run_of(1, 4, 1.25, {{LossClass::kWork, 5.0}});
  EXPECT_NEAR(metric_tree(r, ref, ScalingKind::kWeak).computation.value, 0.8, 1e-12);
  EXPECT_NEAR(metric_tree(r, ref, ScalingKind::kStrong).computation.value, 0.2, 1e-12);
  EXPECT_EQ(ideal_scale(r, ref, ScalingKind::kWeak), 4);
}

// A sampled share: the multinomial error of work / capacity from 400 samples at p = 0.5 is the
// binomial sqrt(p (1 - p) / n).
TEST(ScalingModel, ErrorsFromTheSampledParts) {
  ScalingRun r = run_of(1, 1, 1.0, {});
  r.all.add(LossClass::kWork, 0.5 * kS, 0.5 * kS);
  r.all.add(LossClass::kOverhead, 0.5 * kS, 0.5 * kS);
  r.samples = 400;
  const MetricTree m = metric_tree(r, r, ScalingKind::kStrong);
  EXPECT_NEAR(m.runtime.value, 0.5, 1e-12);
  EXPECT_NEAR(m.runtime.error, std::sqrt(0.25 / 400), 1e-9);
}

TEST(ScalingModel, LossesAddUpToTheWhole) {
  ScalingRun ref = run_of(1, 1, 1.0, {{LossClass::kWork, 1.0}});
  ref.paths["main;a"].add(LossClass::kWork, 0.6 * kS);
  ref.paths["main;b"].add(LossClass::kWork, 0.4 * kS);
  ScalingRun r = run_of(1, 2, 0.7, {{LossClass::kWork, 1.1}, {LossClass::kSerial, 0.3}});
  r.paths["main;a"].add(LossClass::kWork, 0.5 * kS);
  r.paths["main;b"].add(LossClass::kWork, 0.6 * kS);
  r.paths["main;c"].add(LossClass::kSerial, 0.3 * kS);
  const std::vector<Loss> l = losses(r.paths, ref.paths, r, ref, 1);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].key, "main;c");  // largest first
  EXPECT_EQ(l[2].key, "main;a");  // gained 0.1 s
  double sum = 0;
  for (const Loss& x : l) sum += x.total();
  EXPECT_NEAR(sum, r.all.total() - ref.all.total(), 1);
  EXPECT_NEAR(l[2].total(), -0.1 * kS, 1);
}

TEST(ScalingModel, WhatCannotBeASeries) {
  const ScalingRun a = run_of(1, 1, 1, {{LossClass::kWork, 1}});
  EXPECT_NE(series_problem({a}, "").find("two runs or more"), std::string::npos);
  ScalingRun other = a;
  other.program = "/bin/other";
  EXPECT_NE(series_problem({a, other}, "").find("different programs"), std::string::npos);
  ScalingRun regions = a;
  regions.region_paths = {"solve"};
  EXPECT_NE(series_problem({a, regions}, "").find("only one has 'solve'"), std::string::npos);
  EXPECT_EQ(series_problem({a, regions}, "solve"), "");
  EXPECT_EQ(series_problem({a, a}, ""), "");
}

}  // namespace
}  // namespace omprof::viewer
