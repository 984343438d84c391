// libgomp's cost guard as one thread's waits drive it (collector/openmp/cost_guard.h), with
// designed times: which waits are measured, window after window.
#include "collector/openmp/cost_guard.h"

#include <gtest/gtest.h>

#include "collector/openmp/wait_split.h"

namespace omprof::openmp {
namespace {

// `count` waits of `each_ns` wall time, `off_ns` of it off the CPU, from `*now`: how many of
// them the guard measured.
uint64_t run_waits(CostGuard& g, uint64_t count, uint64_t each_ns, uint64_t off_ns, uint64_t* now) {
  uint64_t measured = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const bool measure = g.measure_next();
    *now += each_ns;
    if (measure) {
      g.note_measured(*now, off_ns);
      ++measured;
    }
  }
  return measured;
}

TEST(CostGuard, FastWaitsThatRarelySleepAreMeasuredOneWindowThenPaused) {
  CostGuard g;
  uint64_t now = 1000;
  // 10 us each (100,000 a second), none off the CPU: the first window measures, then the
  // guard pauses for kGuardPause waits, and a new window measures again.
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow);
  EXPECT_EQ(run_waits(g, kGuardPause, 10000, 0, &now), 0u);
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow);
  // Tripped twice in a row: twice as long a pause.
  EXPECT_EQ(run_waits(g, 2 * kGuardPause, 10000, 0, &now), 0u);
  EXPECT_TRUE(g.measure_next());
}

TEST(CostGuard, PausesDoubleUpTo64TimesAndASlowWindowResetsThem) {
  CostGuard g;
  uint64_t now = 1000;
  uint64_t pause = kGuardPause;
  for (int trip = 0; trip < 8; ++trip) {
    EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow) << trip;
    EXPECT_EQ(run_waits(g, pause, 10000, 0, &now), 0u) << trip;
    if (pause < 64 * uint64_t(kGuardPause)) pause *= 2;
  }
  // A window of waits that sleep 20% of the time: measured, and the next pause is the first's.
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 2000, &now), kGuardWindow);
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 2000, &now), kGuardWindow);
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow);
  EXPECT_EQ(run_waits(g, kGuardPause, 10000, 0, &now), 0u);
  EXPECT_TRUE(g.measure_next());
}

// Where the CPU clock is cheap (clocks/switch_watch.h) the adapter measures the paused waits all
// the same and notes them: they are not the next window's, which judges its own waits only.
TEST(CostGuard, WaitsNotedDuringAPauseAreNotTheNextWindows) {
  CostGuard g;
  uint64_t now = 1000;
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow);
  for (uint32_t i = 0; i < kGuardPause; ++i) {
    EXPECT_FALSE(g.measure_next());
    now += 10000;
    g.note_measured(now, 9000);  // sleeping waits, measured by the cheap clock
  }
  // The next window is fast and never off the CPU: it trips the guard again, for twice as long.
  EXPECT_EQ(run_waits(g, kGuardWindow, 10000, 0, &now), kGuardWindow);
  EXPECT_EQ(run_waits(g, 2 * kGuardPause, 10000, 0, &now), 0u);
}

TEST(CostGuard, PassiveOrSlowWaitsAreAlwaysMeasured) {
  CostGuard passive, slow;
  uint64_t now = 1000, later = 1000;
  // Fast waits that sleep 60% of their time (a passive wait policy).
  EXPECT_EQ(run_waits(passive, 20 * kGuardWindow, 10000, 6000, &now), 20 * kGuardWindow);
  // Waits of 100 us (10,000 a second): a window takes over 64 ms.
  EXPECT_EQ(run_waits(slow, 20 * kGuardWindow, 100000, 0, &later), 20 * kGuardWindow);
}

TEST(CostGuard, WaitsThatAreNotRecordedStillCountInTheWindow) {
  // A wait inside which a task waited records no time off the CPU (0), but was measured: the
  // window ends after kGuardWindow of them whatever they recorded.
  CostGuard g;
  uint64_t now = 1000;
  for (uint64_t i = 0; i < kGuardWindow; ++i) {
    ASSERT_TRUE(g.measure_next());
    now += 10000;
    g.note_measured(now, i % 2 ? 0 : 1000);  // 5% off the CPU over the window
  }
  EXPECT_FALSE(g.measure_next());
}

}  // namespace
}  // namespace omprof::openmp
