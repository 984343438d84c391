// The handler's arithmetic of where a thread's time off the CPU fell
// (collector/handler/off_cpu_trail.h): sequences of samples and measured waits, with the time
// off the CPU each sample must see.
#include "collector/handler/off_cpu_trail.h"

#include <gtest/gtest.h>

namespace omprof::handler {
namespace {

constexpr uint64_t kMs = 1000000;

struct Thread {
  OffCpuTrail trail;
  uint64_t measured_ns = 0;
  // A sample at `at_ms` of 5 ms of CPU time; the next sample may share with it when it takes.
  OffCpuSeen sample(uint64_t at_ms, SampleTime time = SampleTime::kTakesOffCpu) {
    const OffCpuSeen seen = off_cpu_seen(trail, at_ms * kMs, measured_ns, 5 * kMs, time);
    trail.previous_slot = time == SampleTime::kTakesOffCpu ? 1 : kNoSeenSlot;
    return seen;
  }
};

TEST(OffCpuTrail, ASampleOnAQuietMachineSeesNothing) {
  Thread t;
  EXPECT_EQ(t.sample(5).this_ns, 0u);
  EXPECT_EQ(t.sample(10).this_ns, 0u);
  EXPECT_EQ(t.sample(15).previous_ns, 0u);
}

TEST(OffCpuTrail, APreemptedGapIsSharedWithThePreviousSample) {
  Thread t;
  t.sample(5);
  const OffCpuSeen s = t.sample(20);  // 5 ms of CPU in 15 ms: 10 off the CPU
  EXPECT_EQ(s.previous_ns, 5 * kMs);
  EXPECT_EQ(s.this_ns, 5 * kMs);
}

TEST(OffCpuTrail, TheFirstSampleAndOneAfterAWaitSampleTakeTheWholeGap) {
  Thread t;
  const OffCpuSeen first = t.sample(8);  // from the thread's start (0): 3 ms off
  EXPECT_EQ(first.previous_ns, 0u);
  EXPECT_EQ(first.this_ns, 3 * kMs);
  t.sample(13, SampleTime::kOwnOffCpuKnown);  // a libgomp barrier: its own time off is measured
  const OffCpuSeen after = t.sample(25);      // 7 ms off, none for the barrier's sample
  EXPECT_EQ(after.previous_ns, 0u);
  EXPECT_EQ(after.this_ns, 7 * kMs);
}

TEST(OffCpuTrail, AMeasuredWaitIsNotSeenAsTimeOffTheCpu) {
  // Work to 5, an exact wait from 5 to 105 (its samples repeat it), work again: the wait's
  // 100 ms are measured, so the sample after it sees nothing, whatever the samples inside saw.
  Thread t;
  t.sample(5);
  for (uint64_t at = 10; at <= 100; at += 10) {
    const OffCpuSeen in_wait = t.sample(at, SampleTime::kRepeatsMeasured);
    EXPECT_EQ(in_wait.this_ns + in_wait.previous_ns, 0u);
  }
  t.measured_ns += 100 * kMs;  // the wait ends at 105, recorded
  const OffCpuSeen after = t.sample(110);
  EXPECT_EQ(after.this_ns + after.previous_ns, 0u);
  // ... and a gap after it is seen as before.
  const OffCpuSeen later = t.sample(125);
  EXPECT_EQ(later.this_ns + later.previous_ns, 10 * kMs);
}

TEST(OffCpuTrail, TimeCountedAheadIsPaidBackBeforeAnyIsSeen) {
  // A measured wait's time subtracted once it is recorded, though the samples in it counted
  // their CPU time: the trail goes negative and the next gaps pay it back first.
  Thread t;
  t.sample(5);
  t.measured_ns += 8 * kMs;
  EXPECT_EQ(t.sample(10).this_ns, 0u);  // 5 - 5 - 8 = -8
  EXPECT_EQ(t.sample(20).this_ns, 0u);  // -8 + 10 - 5 = -3
  const OffCpuSeen s = t.sample(30);    // -3 + 10 - 5 = 2
  EXPECT_EQ(s.previous_ns + s.this_ns, 2 * kMs);
}

TEST(OffCpuTrail, AClockGoingBackwardsSeesNothing) {
  Thread t;
  t.sample(50);
  const OffCpuSeen s = t.sample(40);
  EXPECT_EQ(s.previous_ns + s.this_ns, 0u);
  EXPECT_EQ(t.trail.mono_ns, 50 * kMs);
}

}  // namespace
}  // namespace omprof::handler
