// omprof under hostile conditions (issue 7): many short threads, unloaded libraries, programs
// that block or steal what the collector needs. The program must run as without omprof, and
// whatever omprof could not measure must be counted and said, never silently missing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "harness.h"

namespace omprof::test {
namespace {

// 2,000 threads in rounds of 10, each 1 ms of CPU: far shorter than the 5 ms period, so each
// thread gets at most one sample, with probability 1/5. Every thread is tracked, memory stays
// bounded, and the samples still add up to the CPU time the threads measured: a thread that ends
// before its random sampling instant contributes nothing, one that reaches it a whole period.
TEST(ManyThreads, ShortThreadsAreSampledWithoutBiasInBoundedMemory) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const int rounds = 200, per_round = 10;
  const double ms = 1.0;
  std::string dir = fresh_dir("many_threads");
  RunResult r = run({OMPROF_BIN, "run", "--clock", "task", "-o", dir, "--", program("many_threads"),
                     std::to_string(rounds), std::to_string(per_round), std::to_string(ms)});
  ASSERT_EQ(r.status, 0) << r.err;
  double cpu_in_work = 0;
  int threads = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "threads=%d cpu_in_work=%lf", &threads, &cpu_in_work), 2)
      << r.out;
  EXPECT_EQ(threads, rounds * per_round);
  // The bound: 100 MB for 2,000 short threads (the program alone needs about 2 MB).
  EXPECT_LT(r.max_rss_kb, 100 * 1024);

  format::Profile p = only_profile(dir);
  EXPECT_EQ(p.threads.size(), size_t(threads + 1));
  EXPECT_EQ(p.trailer.threads_untracked(), 0u);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const double sampled = double(total_ns(m, "short_work")) * 1e-9;
  // Per thread a Bernoulli(q) sample of one period, q = its CPU time / period; four standard
  // errors of the sum.
  const double period = double(p.header.period_ns()) * 1e-9;
  const double q = std::min(1.0, cpu_in_work / threads / period);
  const double tolerance = 4 * period * std::sqrt(threads * q * (1 - q)) + 0.01;
  EXPECT_NEAR(sampled, cpu_in_work, tolerance);
}

}  // namespace
}  // namespace omprof::test
