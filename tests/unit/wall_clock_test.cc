#include "collector/handler/wall_clock.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "collector/clocks/wall_clock_check.h"
#include "collector/config.h"

namespace omprof::handler::wall_clock {
namespace {

using omprof::check_wall_clock;
using omprof::kDriftFloorNs;
using omprof::kernel_clocksource;
using omprof::wall_clock_note;
using omprof::WallClockCheck;

uint64_t monotonic() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ULL + uint64_t(t.tv_nsec);
}

TEST(WallClock, TheScalePassesThroughTheLastPairAtTheMeasuredRate) {
  // 2.5 GHz: 2.5e9 ticks a second.
  const TscScale s = scale_between(1000, 5000, 1000 + 2500000000ULL, 5000 + 1000000000ULL);
  ASSERT_NE(s.mult, 0u);
  EXPECT_EQ(to_ns(s, s.tsc0), s.ns0);
  EXPECT_NEAR(double(to_ns(s, s.tsc0 + 2500000000ULL) - s.ns0), 1e9, 1.0);
  EXPECT_NEAR(double(to_ns(s, s.tsc0 + 25) - s.ns0), 10.0, 1.0);
}

TEST(WallClock, AThousandSecondsConvertWithoutOverflow) {
  const TscScale s = scale_between(0, 0, 3000000000ULL, 1000000000ULL);  // 3 GHz
  const uint64_t ticks = 3000ULL * 1000000000ULL;                        // 1,000 s
  EXPECT_NEAR(double(to_ns(s, s.tsc0 + ticks) - s.ns0), 1e12, 1e3);
}

TEST(WallClock, TicksBeforeTheAnchorReadAsTheAnchor) {
  const TscScale s = scale_between(100, 100, 1000100, 500100);
  EXPECT_EQ(to_ns(s, s.tsc0 - 3), s.ns0);
}

TEST(WallClock, PairsThatGiveNoRateGiveNoScale) {
  EXPECT_EQ(scale_between(100, 100, 100, 200).mult, 0u);  // the TSC did not advance
  EXPECT_EQ(scale_between(100, 100, 200, 100).mult, 0u);  // the clock did not
  EXPECT_EQ(scale_between(200, 100, 100, 200).mult, 0u);
}

bool kernel_uses_tsc() {
  return kernel_clocksource() == "tsc";
}

// Where the kernel itself keeps time with the TSC, the clock switches to it after its
// calibration and then agrees with CLOCK_MONOTONIC: never behind an earlier reading, and within
// 50 us of it over 0.2 s (the rate's error is a few parts per million; the rest is the time
// between the two reads, which a preempted test thread can stretch, hence the retries).
TEST(WallClock, AfterCalibrationTheTscAgreesWithClockMonotonic) {
  if (!kernel_uses_tsc()) GTEST_SKIP() << "the kernel's clocksource is not the TSC";
  start(true);
  const uint64_t until = monotonic() + 4 * kCalibrationNs;
  while (!reads_tsc() && monotonic() < until) now_ns();
  ASSERT_TRUE(reads_tsc());
  uint64_t last = now_ns();
  const uint64_t end = monotonic() + 200000000ULL;
  uint64_t worst = 0;
  while (monotonic() < end) {
    uint64_t best = UINT64_MAX;
    for (int attempt = 0; attempt < 5 && best > 2000; ++attempt) {
      const uint64_t a = monotonic();
      const uint64_t t = now_ns();
      const uint64_t b = monotonic();
      ASSERT_GE(t + 1000, last) << "went back";  // rdtsc is unordered: a few cycles of slack
      last = t;
      const uint64_t off = t < a ? a - t : (t > b ? t - b : 0);
      if (off < best) best = off;
    }
    if (best > worst) worst = best;
  }
  EXPECT_LT(worst, 50000u);
  // The check at shutdown finds the same: no drift worth a note.
  EXPECT_LT(std::llabs(tsc_drift_ns()), 50000);
  const WallClockCheck check = check_wall_clock(300000000ULL);
  EXPECT_TRUE(check.tsc);
  EXPECT_EQ(check.note, "");
}

TEST(WallClockCheck, TheMonotonicClockNeedsNoNote) {
  EXPECT_EQ(wall_clock_note(false, 0, 1000000000ULL, "kvm-clock"), "");
  EXPECT_EQ(wall_clock_note(false, 5000000000LL, 1000000000ULL, "tsc"), "");
}

TEST(WallClockCheck, ADriftWithinTheAcceptedRateNeedsNoNote) {
  const uint64_t run = 10000000000ULL;  // 10 s
  // NTP's largest slew, 500 ppm, and the floor on a short run.
  EXPECT_EQ(wall_clock_note(true, 5000000, run, "tsc"), "");
  EXPECT_EQ(wall_clock_note(true, -5000000, run, "tsc"), "");
  EXPECT_EQ(wall_clock_note(true, kDriftFloorNs, 1000, "tsc"), "");
}

TEST(WallClockCheck, ALargerDriftIsNamedWithItsSize) {
  const uint64_t run = 10000000000ULL;
  const std::string ahead = wall_clock_note(true, 100000000, run, "tsc");  // 1% ahead
  EXPECT_NE(ahead.find("100.000 ms ahead of CLOCK_MONOTONIC"), std::string::npos) << ahead;
  EXPECT_NE(ahead.find("10000 ppm"), std::string::npos) << ahead;
  EXPECT_NE(ahead.find("OMPROF_TSC=0"), std::string::npos) << ahead;
  const std::string behind = wall_clock_note(true, -20000000, run, "tsc");
  EXPECT_NE(behind.find("20.000 ms behind"), std::string::npos) << behind;
  EXPECT_NE(wall_clock_note(true, 2 * kDriftFloorNs, 1000, "tsc"), "");
}

TEST(WallClockCheck, AKernelThatStoppedUsingTheTscIsNamed) {
  const std::string note = wall_clock_note(true, 0, 1000000000ULL, "hpet");
  EXPECT_NE(note.find("clocksource is hpet"), std::string::npos) << note;
  EXPECT_EQ(wall_clock_note(true, 0, 1000000000ULL, ""), "");  // unreadable: nothing known
}

}  // namespace
}  // namespace omprof::handler::wall_clock
