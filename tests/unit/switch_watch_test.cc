// The CPU clock read without a system call between context switches (collector/clocks/
// switch_watch.h), against the kernel's thread CPU clock, on a thread that spins, sleeps and
// yields at random: the readings agree at every point, and a spinning stretch costs one system
// call, not one a reading.
#include "collector/clocks/switch_watch.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <random>

#include "collector/handler/sampling_state.h"

namespace omprof::clocks {
namespace {

void spin_cpu_ns(uint64_t ns) {
  const uint64_t start = handler::thread_cpu_ns();
  while (handler::thread_cpu_ns() - start < ns) {
  }
}

// Whether a reading at `now` lies where the kernel's clock says the thread's CPU time was then:
// not after the kernel's reading that follows it, and not before that reading less the wall
// time between the two (a reading after a switch reads the clocks itself, which takes time),
// within `slack_ns` of clock reads.
bool reading_in_bounds(SwitchWatch& watch, uint64_t slack_ns) {
  const uint64_t now = handler::monotonic_ns();
  const uint64_t watched = watch.cpu_ns(now);
  const uint64_t exact = handler::thread_cpu_ns();
  const uint64_t after = handler::monotonic_ns();
  return watched <= exact + slack_ns && watched + (after - now) + slack_ns >= exact;
}

TEST(SwitchWatch, AgreesWithTheThreadCpuClockAcrossSleepsYieldsAndSpins) {
  SwitchWatch watch;
  std::mt19937 random(7);
  int in_bounds = 0, points = 0;
  for (int i = 0; i < 300; ++i) {
    switch (random() % 3) {
      case 0:
        spin_cpu_ns(20000 + random() % 300000);
        break;
      case 1:
        usleep(50 + random() % 400);  // off the CPU: wall minus CPU changes
        break;
      default:
        sched_yield();
    }
    in_bounds += reading_in_bounds(watch, 2000);
    ++points;
  }
  if (!watch.watching()) {
    // perf_event_open refused: every reading was the system call itself.
    EXPECT_EQ(watch.exact_readings(), 0u);
  }
  // A reading after a sleep that missed it would be off by the sleep (50 us or more). An
  // interrupt inside a stint on the CPU may put a few readings out by its length.
  EXPECT_GE(in_bounds, points * 95 / 100) << in_bounds << " of " << points;
}

// The reading before the sleep is an estimate (no switch since the last exact one): it counts
// interrupt time in the thread's stint as CPU time, as the header says, and may exceed the
// thread's CPU clock by that much (36-56 us beside two busy processes here, once in about 2,000
// rounds), so the CPU time over the sleep may read negative by as much. The system call right
// after it says by how much, and the bound allows it.
TEST(SwitchWatch, ASleepIsSeenAsTimeOffTheCpu) {
  SwitchWatch watch;
  for (int i = 0; i < 20; ++i) {
    const uint64_t wall0 = handler::monotonic_ns();
    const uint64_t cpu0 = watch.cpu_ns(wall0);
    const uint64_t kernel0 = handler::thread_cpu_ns();  // after: at least the CPU time at wall0
    const uint64_t interrupts = cpu0 > kernel0 ? cpu0 - kernel0 : 0;
    usleep(2000);
    const uint64_t wall1 = handler::monotonic_ns();
    const uint64_t cpu1 = watch.cpu_ns(wall1);
    const int64_t cpu = int64_t(cpu1) - int64_t(cpu0);
    const int64_t off = int64_t(wall1 - wall0) - cpu;
    EXPECT_GE(off, 1900000) << "round " << i;  // usleep sleeps at least its time
    EXPECT_GE(cpu, -int64_t(interrupts)) << "round " << i << ": the CPU time went back";
  }
}

TEST(SwitchWatch, ASpinReadsWithoutASystemCallUntilTheThreadIsSwitched) {
  SwitchWatch watch;
  watch.cpu_ns(handler::monotonic_ns());
  if (!watch.watching()) GTEST_SKIP() << "perf_event_open refused: nothing to save";
  const uint64_t before = watch.exact_readings();
  // 2,000 readings over about 2 ms of spinning: a switch (a busy machine's preemption) costs one
  // exact reading each; a quiet one has none.
  constexpr uint64_t kReadings = 2000;
  for (uint64_t i = 0; i < kReadings; ++i) {
    spin_cpu_ns(1000);
    watch.cpu_ns(handler::monotonic_ns());
  }
  EXPECT_LT(watch.exact_readings() - before, kReadings / 10);
}

}  // namespace
}  // namespace omprof::clocks
