// How OpenMP waits split (collector/openmp/wait_split.h), on designed timelines: the same
// barrier split whichever runtime feeds it, a worker's join, libgomp's time off the CPU.
#include "collector/openmp/wait_split.h"

#include <gtest/gtest.h>

namespace omprof::openmp {
namespace {

TEST(WaitSplit, ABarrierWaitsForTheSlowestMemberThenSynchronizes) {
  // OMPT: this member worked 30 us since the last synchronization point, the slowest 100 us,
  // and it waited 90 us: 70 us for the slowest, 20 us of the barrier's own release.
  BarrierSplit s = split_by_longest_span(90, 30, 100);
  EXPECT_EQ(s.waiting_ns, 70u);
  EXPECT_EQ(s.sync_ns, 20u);
  // The slowest member itself waits only for the release.
  s = split_by_longest_span(15, 100, 100);
  EXPECT_EQ(s.waiting_ns, 0u);
  EXPECT_EQ(s.sync_ns, 15u);
  // A wait shorter than the imbalance (its span was published late) is all waiting.
  s = split_by_longest_span(40, 30, 100);
  EXPECT_EQ(s.waiting_ns, 40u);
  EXPECT_EQ(s.sync_ns, 0u);
}

TEST(WaitSplit, BothRuntimesSplitTheSameBarrierTheSameWay) {
  // One barrier seen both ways: the member arrives at 130 (span 30 from the sync point at 100),
  // the slowest at 200 (span 100), the member leaves at 220. libgomp's wrappers know the last
  // arrival (200); OMPT knows the spans. Both: 70 waiting, 20 synchronization.
  const BarrierSplit by_spans = split_by_longest_span(220 - 130, 30, 100);
  const BarrierSplit at_arrival = split_at_last_arrival(220 - 130, 130, 220, 200);
  EXPECT_EQ(by_spans.waiting_ns, at_arrival.waiting_ns);
  EXPECT_EQ(by_spans.sync_ns, at_arrival.sync_ns);
}

TEST(WaitSplit, OffCpuTimeSplitsInProportionToTheWallTimeAroundTheLastArrival) {
  // 60 of 90 us off the CPU, last arrival two thirds into the wait: 20 of it after.
  BarrierSplit s = split_at_last_arrival(60, 130, 220, 190);
  EXPECT_EQ(s.sync_ns, 20u);
  EXPECT_EQ(s.waiting_ns, 40u);
  // Last arrival unknown, or before this member arrived (it was the last): all waiting, or
  // all synchronization.
  s = split_at_last_arrival(60, 130, 220, 0);
  EXPECT_EQ(s.waiting_ns, 60u);
  s = split_at_last_arrival(60, 130, 220, 100);
  EXPECT_EQ(s.sync_ns, 60u);
  EXPECT_EQ(split_at_last_arrival(0, 130, 220, 190).sync_ns, 0u);
  EXPECT_EQ(split_at_last_arrival(5, 220, 220, 190).waiting_ns, 5u) << "no wall time";
}

TEST(WaitSplit, AWorkersJoinIsTheBarrierUntilTheRegionEndsThenIdle) {
  // Began waiting at 1,000, waited 5,000 in all; the region ended at 1,800.
  JoinSplit j = split_worker_join(5000, 1000, true, 1800);
  EXPECT_EQ(j.barrier_ns, 800u);
  EXPECT_EQ(j.idle_ns, 4200u);
  // Not ended yet (the worker looked early): all barrier. Ended before it arrived: all idle.
  j = split_worker_join(5000, 1000, false, 0);
  EXPECT_EQ(j.barrier_ns, 5000u);
  j = split_worker_join(5000, 1000, true, 900);
  EXPECT_EQ(j.idle_ns, 5000u);
  // A wait that paused for tasks lasted less than its wall span: the barrier part is capped.
  j = split_worker_join(300, 1000, true, 1800);
  EXPECT_EQ(j.barrier_ns, 300u);
  EXPECT_EQ(j.idle_ns, 0u);
}

TEST(WaitSplit, AfterItsRegionEndedAWorkerWasIdleThenWokenForTheNext) {
  // Region ended at 100, next fork at 900, the worker ran again at 1,000 after 950 off the CPU:
  // woken 100 (900 to 1,000), idle 800 (100 to 900), 50 before the region ended.
  AfterRegionEnd a = split_after_region_end(950, 100, 1000, 900);
  EXPECT_EQ(a.woken_ns, 100u);
  EXPECT_EQ(a.idle_ns, 800u);
  EXPECT_EQ(a.rest_ns, 50u);
  // Off the CPU for less than that: the latest part first (the thread sleeps last).
  a = split_after_region_end(300, 100, 1000, 900);
  EXPECT_EQ(a.woken_ns, 100u);
  EXPECT_EQ(a.idle_ns, 200u);
  EXPECT_EQ(a.rest_ns, 0u);
  // No next region (shutdown), or its fork not seen: all idle.
  a = split_after_region_end(300, 100, 1000, 0);
  EXPECT_EQ(a.woken_ns, 0u);
  EXPECT_EQ(a.idle_ns, 300u);
}

TEST(WaitSplit, ALibgompJoinIsForkOverheadThenWaitingThenReleaseOverhead) {
  // At its region's end barrier from 1,000 to 2,000 with 500 off the CPU. Every member had begun
  // the body at 1,050 and this one's body lasted 100: the fork kept it waiting to 1,150 (150 of
  // 1,000 wall). Every member had ended at 1,800: release and join from then (200). So 350 of
  // 1,000 is overhead: 175 of the 500 off the CPU.
  EXPECT_EQ(join_overhead_ns(500, 1000, 2000, 1050, 100, 1800), 175u);
  // Nobody begun yet, or last end unknown: fork to the end / no release part.
  EXPECT_EQ(join_overhead_ns(500, 1000, 2000, 0, 100, 1800), 500u);
  EXPECT_EQ(join_overhead_ns(500, 1000, 2000, 1050, 100, 0), 75u);
  EXPECT_EQ(join_overhead_ns(500, 2000, 2000, 1050, 100, 1800), 0u) << "no wall time";
  // Its two parts, first and last in time: 75 for the fork (150 of the wall), 100 for the
  // release (200).
  const JoinOverhead o = join_overhead(500, 1000, 2000, 1050, 100, 1800);
  EXPECT_EQ(o.fork_ns, 75u);
  EXPECT_EQ(o.release_ns, 100u);
}

TEST(WaitSplit, TheCostGuardStopsMeasuringFastWaitsThatRarelySleep) {
  // 1,024 waits in 10 ms (100,000 a second), 0.5 ms of it off the CPU (5%): stop for 16,384.
  GuardDecision d = guard_after_window(10000000, 500000, 0);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.pause_waits, kGuardPause);
  EXPECT_EQ(d.trips, 1u);
  // Each trip in a row pauses twice as long, up to 64 times.
  EXPECT_EQ(guard_after_window(10000000, 500000, 1).pause_waits, 2 * kGuardPause);
  EXPECT_EQ(guard_after_window(10000000, 500000, 9).pause_waits, 64 * kGuardPause);
  // Waits that sleep (a passive policy: 10% and more off the CPU) are measured at any rate.
  d = guard_after_window(10000000, 1000000, 3);
  EXPECT_FALSE(d.stop);
  EXPECT_EQ(d.trips, 0u) << "a window that does not trip resets the count";
  // Slow waits (under 16,000 a second) cost little to measure.
  EXPECT_FALSE(guard_after_window(kGuardMinSpanNs, 0, 0).stop);
}

TEST(WaitSplit, OffCpuTimeIsWallMinusCpuNeverNegative) {
  EXPECT_EQ(off_cpu_ns(100, 10, 600, 210), 300u);
  EXPECT_EQ(off_cpu_ns(100, 10, 600, 900), 0u) << "CPU time read after the wall clock";
  EXPECT_EQ(off_cpu_ns(600, 10, 100, 20), 0u) << "clocks out of order";
  EXPECT_EQ(share_of(uint64_t(1) << 62, 3, 4), (uint64_t(1) << 62) / 4 * 3) << "no overflow";
}

}  // namespace
}  // namespace omprof::openmp
