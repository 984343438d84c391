// libgomp's wait clocks (collector/openmp/wait_clocks.h), replaying the wrappers' event
// sequences with designed clocks: a barrier measured whole, a task run inside it through the
// trampoline (paused, then measured again), a taskwait recursion (fib: the inner waits make the
// outer ones unrecorded), a task at the region's end, waits the cost guard leaves unmeasured.
#include "collector/openmp/wait_clocks.h"

#include <gtest/gtest.h>

#include "collector/openmp/wait_split.h"

namespace omprof::openmp {
namespace {

uint64_t off(const WaitClock& w, uint64_t now, uint64_t cpu) {
  return off_cpu_ns(w.start_ns, w.cpu_start_ns, now, cpu);
}

TEST(WaitClocks, ABarrierWithNoTaskIsRecordedWhole) {
  ThreadWaits t;
  const WaitClock w = t.begin(1000, 50);
  EXPECT_TRUE(t.recorded(w));
  EXPECT_EQ(off(w, 1600, 150), 500u);  // 600 wall, 100 on the CPU
}

TEST(WaitClocks, ATaskRunInsideABarrierPausesItAndItGoesOnAfter) {
  // Barrier 1,000 to 3,000; a task runs in it 1,400 to 2,400 (through the trampoline). The
  // barrier's pieces: 1,000-1,400 (recorded at the task's start) and 2,400-3,000.
  ThreadWaits t;
  WaitClock w = t.begin(1000, 100);
  const TaskPause p = t.pause_for_task(&w);
  EXPECT_FALSE(p.join);
  ASSERT_TRUE(p.wait);
  EXPECT_EQ(off(w, 1400, 200), 300u);  // the piece before the task
  t.resume_after_task(p, &w, 2400, 1150);
  EXPECT_EQ(w.start_ns, 2400u);
  EXPECT_EQ(w.cpu_start_ns, 1150u);
  EXPECT_TRUE(t.recorded(w));
  EXPECT_EQ(off(w, 3000, 1250), 500u);  // the piece after: the task's 1,000 are in neither
}

TEST(WaitClocks, ATaskRunAtOnceInsideAPausingTaskDoesNotPauseTheWaitAgain) {
  // Barrier from 1,000; task A runs in it from 1,400 (the barrier's piece 1,000-1,400 recorded
  // then); A creates a task that libgomp runs at once inside GOMP_task (its queue full), B, at
  // 1,800 to 2,000. The barrier is paused already: B records no piece of it (1,000-1,800 would
  // count its first piece twice and A's time off the CPU as waiting), and B's end resumes
  // nothing; A's end, at 2,400, resumes it.
  ThreadWaits t;
  WaitClock w = t.begin(1000, 100);
  const TaskPause a = t.pause_for_task(&w);
  ASSERT_TRUE(a.wait);
  const TaskPause b = t.pause_for_task(&w);
  EXPECT_FALSE(b.wait);
  EXPECT_FALSE(b.join);
  t.resume_after_task(b, &w, 2000, 900);
  EXPECT_EQ(w.start_ns, 1000u);  // still paused from A's start
  t.resume_after_task(a, &w, 2400, 1150);
  EXPECT_EQ(w.start_ns, 2400u);
  EXPECT_TRUE(t.recorded(w));
  EXPECT_EQ(off(w, 3000, 1250), 500u);
  // Paused again by the next task, as the first time.
  EXPECT_TRUE(t.pause_for_task(&w).wait);
}

TEST(WaitClocks, ATaskThatWaitsItselfLeavesTheRestOfTheWaitUnrecorded) {
  // fib: a taskwait runs a child task that takes its own taskwait. The inner wait is recorded;
  // the outer one's piece before the task is, its rest is not (its time off the CPU may be the
  // child's preemption).
  ThreadWaits t;
  WaitClock outer = t.begin(1000, 10);
  const TaskPause p = t.pause_for_task(&outer);
  ASSERT_TRUE(p.wait);
  const WaitClock inner = t.begin(1200, 60);
  EXPECT_TRUE(t.recorded(inner));
  EXPECT_FALSE(t.recorded(outer));
  t.resume_after_task(p, &outer, 1500, 200);
  EXPECT_EQ(outer.start_ns, 1000u);  // not restarted
  EXPECT_FALSE(t.recorded(outer));
}

TEST(WaitClocks, WhereTheRunQueueIsReadTheRestOfSuchAWaitRecordsItsSleep) {
  // The same recursion where the thread's time in the run queue is known (the cheap CPU clock):
  // after the child the outer taskwait goes on, sleep_only. Its next piece, 1,500 to 2,500, is
  // 900 off the CPU; of it, what the thread spent in the run queue (preempted, or woken and
  // waiting for a CPU) is not its waiting.
  ThreadWaits t;
  WaitClock outer = t.begin(1000, 10);
  const TaskPause p = t.pause_for_task(&outer);
  ASSERT_TRUE(p.wait);
  (void)t.begin(1200, 60);  // the child's own taskwait
  t.resume_after_task(p, &outer, 1500, 200, true, 7000);
  EXPECT_TRUE(t.recorded(outer));
  EXPECT_TRUE(outer.sleep_only);
  EXPECT_EQ(outer.start_ns, 1500u);
  EXPECT_EQ(outer.cpu_start_ns, 200u);
  const uint64_t off = off_cpu_ns(outer.start_ns, outer.cpu_start_ns, 2500, 300);
  EXPECT_EQ(off, 900u);
  EXPECT_EQ(sleep_part(outer, off, 7000), 900u);  // slept, never queued
  EXPECT_EQ(sleep_part(outer, off, 7300), 600u);  // 300 of it in the run queue
  EXPECT_EQ(sleep_part(outer, off, 9000), 0u);    // all of it preempted
  // A wait that ran only tasks that did not wait keeps all of its time off the CPU.
  WaitClock plain = t.begin(3000, 400);
  const TaskPause q = t.pause_for_task(&plain);
  t.resume_after_task(q, &plain, 3500, 600, true, 9000);
  EXPECT_FALSE(plain.sleep_only);
  EXPECT_EQ(sleep_part(plain, 100, 9050), 100u);
}

TEST(WaitClocks, ARuntimeCallRecordsWhatItSleptNotItsPreemptionNorATaskRunInside) {
  // GOMP_task from 1,000 to 2,000: the CPU clock went from 100 to 300, so 800 off the CPU; the
  // run queue's time from 5,000 to 5,200 (preempted 200 of it): it slept 600 on the task lock.
  RuntimeCallClock c;
  c.start_ns = 1000;
  c.cpu_start_ns = 100;
  c.run_delay_start_ns = 5000;
  c.tasks_begun = 7;
  EXPECT_EQ(runtime_call_sleep(c, 2000, 300, 5200, 7), 600u);
  EXPECT_EQ(runtime_call_sleep(c, 2000, 300, 5000, 7), 800u);  // never queued: all slept
  EXPECT_EQ(runtime_call_sleep(c, 2000, 300, 6000, 7), 0u);    // all of it preempted
  EXPECT_EQ(runtime_call_sleep(c, 2000, 1100, 5000, 7), 0u);   // on the CPU throughout
  // libgomp ran a task at once inside the call (its queue full): its time off the CPU is
  // partly the task's, so none of it is recorded.
  EXPECT_EQ(runtime_call_sleep(c, 2000, 300, 5200, 8), 0u);
  // Not measured (no cheap clock at its start).
  EXPECT_EQ(runtime_call_sleep(RuntimeCallClock{}, 2000, 300, 5200, 0), 0u);
}

TEST(WaitClocks, AWaitBegunInsideWithoutTheTrampolineMakesTheOuterUnrecorded) {
  // A taskloop's task is not run through the trampoline: no pause; its barrier begins a wait.
  ThreadWaits t;
  WaitClock outer = t.begin(1000, 10);
  const WaitClock inner = t.begin(1100, 20);
  EXPECT_TRUE(t.recorded(inner));
  EXPECT_FALSE(t.recorded(outer));
  EXPECT_FALSE(t.pause_for_task(&outer).wait);  // nothing left of it to pause
}

TEST(WaitClocks, ATaskAtTheRegionsEndPausesTheJoinEvenIfItWaits) {
  // The end-of-region wait opens at 1,000; a task runs there 1,300 to 1,800 and takes a taskwait
  // (1,500); the join closes at 2,500. Both of the join's pieces are recorded: after the task
  // the span opens again with the waits begun so far.
  ThreadWaits t;
  t.open_join(1000, 100);
  const TaskPause p = t.pause_for_task(nullptr);
  ASSERT_TRUE(p.join);
  EXPECT_FALSE(p.wait);
  const JoinSpan::Closed before = t.close_join(1300, 150);
  EXPECT_TRUE(before.recorded);
  EXPECT_EQ(before.off_ns, 250u);
  EXPECT_FALSE(t.join().is_open());
  (void)t.begin(1500, 300);  // the task's taskwait
  t.resume_after_task(p, nullptr, 1800, 500);
  ASSERT_TRUE(t.join().is_open());
  const JoinSpan::Closed after = t.close_join(2500, 600);
  EXPECT_TRUE(after.recorded);
  EXPECT_EQ(after.start_ns, 1800u);
  EXPECT_EQ(after.off_ns, 600u);
}

TEST(WaitClocks, AJoinInsideWhichAWaitBeganUnpausedIsNotRecorded) {
  ThreadWaits t;
  t.open_join(1000, 100);
  (void)t.begin(1200, 150);  // a wait of a task the trampoline did not see
  EXPECT_FALSE(t.close_join(2000, 300).recorded);
}

TEST(WaitClocks, WaitsTheCostGuardLeavesUnmeasuredAreNeverRecordedButCount) {
  // A wait not measured off the CPU (cpu 0) is not recorded and is not paused by a task; it
  // still counts as begun, so a measured wait around it is not recorded after it.
  ThreadWaits t;
  const WaitClock outer = t.begin(1000, 10);
  WaitClock unmeasured = t.begin(0, 0);
  EXPECT_FALSE(t.recorded(unmeasured));
  EXPECT_FALSE(t.pause_for_task(&unmeasured).wait);
  EXPECT_FALSE(t.recorded(outer));
  // A lock is measured whole on the monotonic clock (start read, no CPU clock): not this rule's.
  const WaitClock lock = t.begin(2000, 0);
  EXPECT_EQ(lock.start_ns, 2000u);
  EXPECT_FALSE(t.recorded(lock));
}

}  // namespace
}  // namespace omprof::openmp
