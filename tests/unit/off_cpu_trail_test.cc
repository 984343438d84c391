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
  MeasuredKnown known = MeasuredKnown::kAtItsEnd;
  uint64_t region = 7;  // the parallel region of the next sample
  // A sample at `at_ms` of `cpu_ms` of CPU time since the previous one; the next sample may share
  // with it when it takes.
  OffCpuSeen sample(uint64_t at_ms, SampleTime time = SampleTime::kTakesOffCpu,
                    uint64_t cpu_ms = 5) {
    SampleGap gap;
    gap.now_mono_ns = at_ms * kMs;
    gap.cpu_ns = cpu_ms * kMs;
    gap.measured_ns = measured_ns;
    gap.known = known;
    gap.time = time;
    gap.region = region;
    const OffCpuSeen seen = off_cpu_seen(trail, gap);
    trail.previous_slot = time == SampleTime::kTakesOffCpu ? 1 : kNoSeenSlot;
    trail.previous_region = region;
    return seen;
  }
  uint64_t seen_by(uint64_t at_ms, SampleTime time, uint64_t cpu_ms) {
    const OffCpuSeen s = sample(at_ms, time, cpu_ms);
    return s.previous_ns + s.this_ns;
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

// OMPT: waits are wall time whose open part the thread publishes (measured_ns grows while the
// wait runs). A thread works 0-10 ms, off the CPU 4 ms of it, and spins in a lock wait from 10
// to 14 ms, where a sample lands (9 ms of CPU since the previous sample at 0 ms: 6 of work, 3
// of spinning, the clock cannot tell which).
TEST(OffCpuTrail, WorkBeforeAWaitIsNotPassedOnAsTimeOffTheCpu) {
  Thread t;
  t.known = MeasuredKnown::kWhileItRuns;
  t.measured_ns = 3 * kMs;  // the wait's part so far, 10 to 13
  // 13 ms of wall, 3 measured: 10 outside, of which the clock's 9 ms of CPU may cover 9.
  EXPECT_EQ(t.seen_by(13, SampleTime::kRepeatsMeasured, 9), 0u);
  t.measured_ns = 4 * kMs;  // the wait ends at 14 and is recorded
  // The next work sample at 20: 6 ms outside, 5 of CPU, 1 off; plus the 1 ms carried: the
  // sample in the wait took none (the clock's 9 ms hid at most 9 of the 10 outside).
  EXPECT_EQ(t.seen_by(20, SampleTime::kTakesOffCpu, 5), 2 * kMs);
  // With the wait's time known only at its end, the sample in the wait subtracted no CPU
  // time: the next sample took the 6 ms of work before the wait as time off the CPU.
  Thread late;
  EXPECT_EQ(late.seen_by(13, SampleTime::kRepeatsMeasured, 9), 0u);
  late.measured_ns = 4 * kMs;
  EXPECT_EQ(late.seen_by(20, SampleTime::kTakesOffCpu, 5), 11 * kMs);
}

TEST(OffCpuTrail, CpuTimeSpentSpinningInAWaitHidesNoTimeOffTheCpu) {
  // A work sample at 5; a spinning wait from 5 to 8, then work to 10, a sample: 5 ms of CPU,
  // 3 of them in the wait. Then 3 ms off the CPU in the next gap: seen whole, not less the
  // wait's CPU time.
  Thread t;
  t.known = MeasuredKnown::kWhileItRuns;
  t.sample(5);
  t.measured_ns = 3 * kMs;
  EXPECT_EQ(t.seen_by(10, SampleTime::kTakesOffCpu, 5), 0u);
  EXPECT_EQ(t.seen_by(18, SampleTime::kTakesOffCpu, 5), 3 * kMs);
  // Known only at its end, the wait's CPU time counted against the thread's later gaps.
  Thread late;
  late.sample(5);
  late.measured_ns = 3 * kMs;
  EXPECT_EQ(late.seen_by(10, SampleTime::kTakesOffCpu, 5), 0u);
  EXPECT_EQ(late.seen_by(18, SampleTime::kTakesOffCpu, 5), 0u);
}

TEST(OffCpuTrail, WhatASampleInAWaitSawGoesToThePreviousSampleOfItsRegion) {
  // A work sample at 5; work from 5 to 9, off the CPU 2 ms of it; a wait from 9 to 15 that
  // sleeps; a sample in it at 12 (2 ms of CPU since 5); the next work sample at 20 (5 ms of CPU).
  // The 2 ms off the CPU lay before the wait: the previous sample takes them.
  Thread t;
  t.known = MeasuredKnown::kWhileItRuns;
  t.sample(5);
  t.measured_ns = 3 * kMs;  // the wait so far
  OffCpuSeen in_wait = t.sample(12, SampleTime::kRepeatsMeasured, 2);
  EXPECT_EQ(in_wait.previous_ns, 2 * kMs);
  EXPECT_EQ(in_wait.this_ns, 0u);
  t.measured_ns = 6 * kMs;  // the wait ended at 15
  EXPECT_EQ(t.seen_by(20, SampleTime::kTakesOffCpu, 5), 0u);
  // The previous sample in another region (the wait's region began after it): carried to the
  // next sample, which is more likely in the wait's region.
  Thread other;
  other.known = MeasuredKnown::kWhileItRuns;
  other.sample(5);
  other.region = 8;
  other.measured_ns = 3 * kMs;
  EXPECT_EQ(other.seen_by(12, SampleTime::kRepeatsMeasured, 2), 0u);
  other.measured_ns = 6 * kMs;
  const OffCpuSeen next = other.sample(20, SampleTime::kTakesOffCpu, 5);
  EXPECT_EQ(next.previous_ns, 0u);
  EXPECT_EQ(next.this_ns, 2 * kMs);
}

}  // namespace
}  // namespace omprof::handler
