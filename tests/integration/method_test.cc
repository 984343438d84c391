// The measurement method against designed programs: periodic programs whose period is a
// multiple of the sampling period (where a fixed-interval sampler phase-locks), for each clock
// and more than one rate. Tolerances come from the profile's own sample count.
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <tuple>

#include "harness.h"

namespace omprof::test {
namespace {

struct Periodic {
  std::string clock;
  int rate_hz;
  int period_ms;
};

void PrintTo(const Periodic& c, std::ostream* os) {
  *os << c.clock << " " << c.rate_hz << " Hz, period " << c.period_ms << " ms";
}

class PeriodicProgram : public ::testing::TestWithParam<Periodic> {};

// a() takes 60% and b() 40% of every step's CPU time, as the program itself measures.
TEST_P(PeriodicProgram, SharesMatchTheProgramsOwnMeasurement) {
  const Periodic c = GetParam();
  if (c.clock == "task" && !task_clock_usable())
    GTEST_SKIP() << "perf_event task-clock not available";
  const std::string dir = fresh_dir("periodic_" + c.clock + std::to_string(c.rate_hz) + "_" +
                                    std::to_string(c.period_ms));
  const int steps = 2500 / c.period_ms;  // 2.5 s of CPU time
  RunResult r =
      run({OMPROF_BIN, "run", "-o", dir, "--clock", c.clock, "--rate", std::to_string(c.rate_hz),
           "--", program("periodic"), std::to_string(c.period_ms), std::to_string(steps)});
  ASSERT_EQ(r.status, 0) << r.err;
  double a = 0, b = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "a=%lf b=%lf", &a, &b), 2) << r.out;
  const double truth = a / (a + b);

  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const double in_a = double(total_ns(m, "phase_a")), in_b = double(total_ns(m, "phase_b"));
  ASSERT_GT(in_a + in_b, 0);
  const double share = in_a / (in_a + in_b);
  EXPECT_NEAR(share, truth, sampling_tolerance(truth, m.total_samples))
      << m.total_samples << " samples";
  // Every sample stands for the time since the previous one: the total is the CPU time.
  EXPECT_NEAR((in_a + in_b) * 1e-9, a + b, 0.03 * (a + b) + 2.0 / c.rate_hz);
}

std::string name(const ::testing::TestParamInfo<Periodic>& i) {
  return i.param.clock + "_" + std::to_string(i.param.rate_hz) + "Hz_period" +
         std::to_string(i.param.period_ms) + "ms";
}

// The cpu clock's timers fire on kernel ticks, so it runs at the default rate only; the
// hrtimer-driven clocks also at 1 kHz, where the sampling period divides every program period.
INSTANTIATE_TEST_SUITE_P(Clocks, PeriodicProgram,
                         ::testing::Values(Periodic{"cpu", 200, 5}, Periodic{"cpu", 200, 10},
                                           Periodic{"cpu", 200, 20}, Periodic{"task", 200, 10},
                                           Periodic{"task", 1000, 5}, Periodic{"task", 1000, 10},
                                           Periodic{"task", 1000, 20}, Periodic{"wall", 200, 10},
                                           Periodic{"wall", 1000, 5}, Periodic{"wall", 1000, 20}),
                         name);

}  // namespace
}  // namespace omprof::test
