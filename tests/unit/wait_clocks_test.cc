// libgomp's wait clocks on the thread's stack of open waits (collector/openmp/open_waits.h,
// wait_clocks.h), replaying the wrappers' event sequences with designed clocks: a barrier
// measured whole, a task run inside it through the trampoline (paused, then measured again), a
// taskwait recursion (fib: the inner waits make the outer ones unrecorded), a task at the
// region's end, waits the cost guard leaves unmeasured, a stack too deep, and the one rule of
// task switches that exact (OMPT) and clocked waits share.
#include "collector/openmp/wait_clocks.h"

#include <gtest/gtest.h>

#include "collector/openmp/open_waits.h"
#include "collector/openmp/wait_split.h"

namespace omprof::openmp {
namespace {

uint64_t off(const OpenWait& w, uint64_t now, uint64_t cpu) {
  return off_cpu_ns(w.clock.start_ns, w.clock.cpu_start_ns, now, cpu);
}

// The tasks of the sequences: the implicit task, and tasks run through the trampoline (their
// identity is its frame on libgomp; any distinct address here).
int g_implicit_task, g_task_one, g_task_two, g_task_three;
const void* const kImplicit = &g_implicit_task;
const void* const kA = &g_task_one;
const void* const kB = &g_task_two;
const void* const kC = &g_task_three;

// A barrier or taskwait of `task` the wrapper measures off the CPU (`cpu` 0: not measured), as
// collector/libgomp/waits.cc begins it.
OpenWait* begin(OpenWaits& t, uint64_t now, uint64_t cpu, Measure how = Measure::kOffCpu,
                const void* task = kImplicit) {
  return t.begin_clocked(task, 0x4000, format::kWaitBarrierExplicit, how, now, cpu);
}

TEST(WaitClocks, ABarrierWithNoTaskIsRecordedWhole) {
  OpenWaits t;
  const OpenWait* w = begin(t, 1000, 50);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(t.recorded(*w));
  EXPECT_EQ(off(*w, 1600, 150), 500u);  // 600 wall, 100 on the CPU
  EXPECT_EQ(t.pop(), w);
  EXPECT_EQ(t.depth(), 0);
}

TEST(WaitClocks, ATaskRunInsideABarrierPausesItAndItGoesOnAfter) {
  // Barrier 1,000 to 3,000; task A runs in it 1,400 to 2,400 (through the trampoline). The
  // barrier's pieces: 1,000-1,400 (recorded at the task's start) and 2,400-3,000.
  OpenWaits t;
  const OpenWait* w = begin(t, 1000, 100);
  ASSERT_TRUE(t.switch_moves_wait(kA));  // A begins
  EXPECT_EQ(off(*w, 1400, 200), 300u);   // the piece before the task, recorded by the adapter
  t.pause_clocked();
  EXPECT_FALSE(t.switch_moves_wait(kA));        // paused: only its own task resumes it
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));  // A ends: back to the waiting task
  t.resume_clocked(2400, 1150);
  EXPECT_EQ(w->clock.start_ns, 2400u);
  EXPECT_EQ(w->clock.cpu_start_ns, 1150u);
  EXPECT_EQ(w->first_start_ns, 1000u);
  EXPECT_TRUE(t.recorded(*w));
  EXPECT_EQ(off(*w, 3000, 1250), 500u);  // the piece after: the task's 1,000 are in neither
}

TEST(WaitClocks, ATaskRunAtOnceInsideAPausingTaskDoesNotPauseTheWaitAgain) {
  // Barrier from 1,000; task A runs in it from 1,400 (the barrier's piece 1,000-1,400 recorded
  // then); A creates a task that libgomp runs at once inside GOMP_task (its queue full), B, at
  // 1,800 to 2,000. The barrier is paused already: B records no piece of it (1,000-1,800 would
  // count its first piece twice and A's time off the CPU as waiting), and B's end resumes
  // nothing; A's end, at 2,400, resumes it.
  OpenWaits t;
  const OpenWait* w = begin(t, 1000, 100);
  ASSERT_TRUE(t.switch_moves_wait(kA));
  t.pause_clocked();
  EXPECT_FALSE(t.switch_moves_wait(kB));  // B begins inside A
  EXPECT_FALSE(t.switch_moves_wait(kA));  // B ends: back to A
  EXPECT_EQ(w->clock.start_ns, 1000u);    // still paused from A's start
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));
  t.resume_clocked(2400, 1150);
  EXPECT_EQ(w->clock.start_ns, 2400u);
  EXPECT_TRUE(t.recorded(*w));
  EXPECT_EQ(off(*w, 3000, 1250), 500u);
  // Paused again by the next task, as the first time.
  EXPECT_TRUE(t.switch_moves_wait(kC));
}

TEST(WaitClocks, ATaskThatWaitsItselfLeavesTheRestOfTheWaitUnrecorded) {
  // fib: a taskwait runs a child task that takes its own taskwait. The inner wait is recorded;
  // the outer one's piece before the task is, its rest is not (its time off the CPU may be the
  // child's preemption).
  OpenWaits t;
  const OpenWait* outer = begin(t, 1000, 10);
  ASSERT_TRUE(t.switch_moves_wait(kA));
  t.pause_clocked();
  const OpenWait* inner = begin(t, 1200, 60, Measure::kOffCpu, kA);
  EXPECT_EQ(t.innermost(), inner);
  EXPECT_TRUE(t.recorded(*inner));
  EXPECT_FALSE(t.recorded(*outer));
  EXPECT_TRUE(t.switch_moves_wait(kB));  // a task run in the inner wait pauses that one
  EXPECT_EQ(t.pop(), inner);             // the child's taskwait ends, then the child
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));
  t.resume_clocked(1500, 200);
  EXPECT_EQ(outer->clock.start_ns, 1000u);  // not restarted
  EXPECT_FALSE(t.recorded(*outer));
}

TEST(WaitClocks, WhereTheRunQueueIsReadTheRestOfSuchAWaitRecordsItsSleep) {
  // The same recursion where the thread's time in the run queue is known (the cheap CPU clock):
  // after the child the outer taskwait goes on, sleep_only. Its next piece, 1,500 to 2,500, is
  // 900 off the CPU; of it, what the thread spent in the run queue (preempted, or woken and
  // waiting for a CPU) is not its waiting.
  OpenWaits t;
  const OpenWait* outer = begin(t, 1000, 10);
  ASSERT_TRUE(t.switch_moves_wait(kA));
  t.pause_clocked();
  (void)begin(t, 1200, 60, Measure::kOffCpu, kA);  // the child's own taskwait
  (void)t.pop();
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));
  t.resume_clocked(1500, 200, true, 7000);
  EXPECT_TRUE(t.recorded(*outer));
  EXPECT_TRUE(outer->clock.sleep_only);
  EXPECT_EQ(outer->clock.start_ns, 1500u);
  EXPECT_EQ(outer->clock.cpu_start_ns, 200u);
  const uint64_t off = off_cpu_ns(outer->clock.start_ns, outer->clock.cpu_start_ns, 2500, 300);
  EXPECT_EQ(off, 900u);
  EXPECT_EQ(sleep_part(outer->clock, off, 7000), 900u);  // slept, never queued
  EXPECT_EQ(sleep_part(outer->clock, off, 7300), 600u);  // 300 of it in the run queue
  EXPECT_EQ(sleep_part(outer->clock, off, 9000), 0u);    // all of it preempted
  (void)t.pop();
  // A wait that ran only tasks that did not wait keeps all of its time off the CPU.
  const OpenWait* plain = begin(t, 3000, 400);
  ASSERT_TRUE(t.switch_moves_wait(kB));
  t.pause_clocked();
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));
  t.resume_clocked(3500, 600, true, 9000);
  EXPECT_FALSE(plain->clock.sleep_only);
  EXPECT_EQ(sleep_part(plain->clock, 100, 9050), 100u);
}

TEST(WaitClocks, OneSwitchRuleForExactAndClockedWaits) {
  // The same switches on an exact wait (OMPT) and a clocked one (libgomp): each pauses when its
  // task stops running, and resumes when that task runs again, never at a switch between others.
  OpenWaits exact;
  OpenWaits clocked;
  class Nothing final : public TeamFacts {
   public:
    uint64_t barrier_key(uint32_t, uint32_t) const override { return 0; }
    void publish_span(uint64_t, uint64_t) override {}
    uint64_t longest_span(uint64_t, uint64_t own) const override { return own; }
    bool region_ended(uint32_t, uint64_t*) const override { return false; }
    uint64_t waking_fork(uint32_t, uint32_t, uint64_t*) const override { return 0; }
  } team;
  WaitStart start;
  start.task = kImplicit;
  start.ctx.omp_state = format::kWaitTaskwait;
  ASSERT_TRUE(exact.begin(start, 1000, team));
  ASSERT_NE(begin(clocked, 1000, 10), nullptr);
  for (OpenWaits* t : {&exact, &clocked}) {
    EXPECT_FALSE(t->switch_moves_wait(kImplicit));
    EXPECT_TRUE(t->switch_moves_wait(kA));
  }
  class Timeline final : public WaitSink {
   public:
    void record(uint64_t, const SampleContext&, uint64_t) override {}
    void place(uint64_t, uint64_t, const SampleContext&) override {}
  } sink;
  exact.task_switch(kA, 1400, sink);
  clocked.pause_clocked();
  for (OpenWaits* t : {&exact, &clocked}) {
    EXPECT_FALSE(t->switch_moves_wait(kB));
    EXPECT_FALSE(t->switch_moves_wait(kA));
    EXPECT_TRUE(t->switch_moves_wait(kImplicit));
  }
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
  // A taskloop's task is not run through the trampoline: no switch; its barrier begins a wait.
  OpenWaits t;
  const OpenWait* outer = begin(t, 1000, 10);
  const OpenWait* inner = begin(t, 1100, 20);
  EXPECT_TRUE(t.recorded(*inner));
  EXPECT_FALSE(t.recorded(*outer));
  (void)t.pop();
  EXPECT_FALSE(t.switch_moves_wait(kA));  // nothing left of it to pause
}

// The end-of-region wait of the implicit task, as collector/libgomp/regions.cc opens it.
void open_join(OpenWaits& t, uint64_t now, uint64_t cpu, Measure how = Measure::kOffCpu) {
  SampleContext ctx;
  ctx.omp_state = format::kWaitBarrierImplicitParallel;
  t.open_join(kImplicit, ctx, BarrierRole::kWorkerJoin, how, now, cpu);
}

TEST(WaitClocks, ATaskAtTheRegionsEndPausesTheJoinEvenIfItWaits) {
  // The end-of-region wait opens at 1,000; a task runs there 1,300 to 1,800 and takes a taskwait
  // (1,500); the join closes at 2,500. Both of the join's pieces are recorded: the task pauses
  // it by the one switch rule, and it resumes afresh after the task, whatever the task did.
  OpenWaits t;
  open_join(t, 1000, 100);
  ASSERT_NE(t.join(), nullptr);
  ASSERT_TRUE(t.switch_moves_wait(kA));  // a task runs there: it pauses
  const JoinPiece before = t.join_piece(1300, 150);
  EXPECT_TRUE(before.recorded);
  EXPECT_EQ(before.start_ns, 1000u);
  EXPECT_EQ(before.off_ns, 250u);
  t.pause_clocked();
  EXPECT_EQ(t.join(), nullptr);           // paused: the task's time is not the join's
  EXPECT_FALSE(t.switch_moves_wait(kB));  // a task run at once inside the task leaves it so
  (void)begin(t, 1500, 300, Measure::kOffCpu, kA);  // the task's taskwait
  (void)t.pop();
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));  // the task ended: the barrier's task runs again
  t.resume_clocked(1800, 500);
  const JoinPiece after = t.join_piece(2500, 600);
  EXPECT_TRUE(after.recorded);
  EXPECT_EQ(after.start_ns, 1800u);
  EXPECT_EQ(after.off_ns, 600u);
  t.close_join();
  EXPECT_EQ(t.depth(), 0);
}

TEST(WaitClocks, AJoinInsideWhichAWaitBeganUnpausedIsNotRecordedUntilATaskPausesIt) {
  // A wait of a task the trampoline did not see (a taskloop's) begins at 1,200: the join's time
  // off the CPU may be that task's, up to the next task run through the trampoline, which still
  // pauses it; after that task it is recorded again.
  OpenWaits t;
  open_join(t, 1000, 100);
  (void)begin(t, 1200, 150);
  (void)t.pop();
  EXPECT_FALSE(t.join_piece(1500, 300).recorded);
  ASSERT_TRUE(t.switch_moves_wait(kA));
  t.pause_clocked();
  ASSERT_TRUE(t.switch_moves_wait(kImplicit));
  t.resume_clocked(1800, 500);
  EXPECT_TRUE(t.join_piece(2000, 600).recorded);
}

TEST(WaitClocks, AJoinTheCostGuardLeavesUnmeasuredIsClosedButNeverPaused) {
  OpenWaits t;
  open_join(t, 1000, 0, Measure::kNone);
  ASSERT_NE(t.join(), nullptr);
  EXPECT_FALSE(t.switch_moves_wait(kA));
  EXPECT_EQ(t.join_piece(2000, 300).off_ns, 0u);
  t.close_join();
  EXPECT_EQ(t.depth(), 0);
}

TEST(WaitClocks, AJoinUnderAWaitIsNotTheOneAJoinCloses) {
  // A task at the region's end forks a nested region: its waits and the nested region's join lie
  // above the paused join of the outer region, and only the innermost, unpaused, one is closed.
  OpenWaits t;
  open_join(t, 1000, 100);
  ASSERT_TRUE(t.switch_moves_wait(kA));
  t.pause_clocked();
  EXPECT_EQ(t.join(), nullptr);
  t.close_join();  // nothing: the outer join is paused
  EXPECT_EQ(t.depth(), 1);
  open_join(t, 1400, 200);  // the nested region's master, at its region's end
  ASSERT_NE(t.join(), nullptr);
  t.close_join();
  EXPECT_EQ(t.depth(), 1);
}

TEST(WaitClocks, WaitsTheCostGuardLeavesUnmeasuredAreNeverRecordedButCount) {
  // A wait not measured off the CPU (cpu 0) is not recorded and is not paused by a task; it
  // still counts as begun, so a measured wait around it is not recorded after it.
  OpenWaits t;
  const OpenWait* outer = begin(t, 1000, 10);
  const OpenWait* unmeasured = begin(t, 0, 0, Measure::kNone);
  EXPECT_FALSE(t.recorded(*unmeasured));
  EXPECT_FALSE(t.switch_moves_wait(kA));
  EXPECT_FALSE(t.recorded(*outer));
  (void)t.pop();
  // A lock is measured whole on the monotonic clock (start read, no CPU clock): not this rule's.
  const OpenWait* lock = begin(t, 2000, 0, Measure::kWhole);
  EXPECT_EQ(lock->measure, Measure::kWhole);
  EXPECT_EQ(lock->clock.start_ns, 2000u);
  EXPECT_FALSE(t.recorded(*lock));
  EXPECT_FALSE(t.switch_moves_wait(kA));
}

TEST(WaitClocks, AWaitBeyondAFullStackIsNotKeptButEndsTheRecordingOfThoseAround) {
  // A recursion of taskwaits deeper than the stack: the wait that does not fit is refused (the
  // wrapper counts it and does not pop it), and still counts as begun inside the others.
  OpenWaits t;
  for (int i = 0; i < kMaxOpenWaits; ++i) ASSERT_NE(begin(t, 1000 + i, 10), nullptr);
  const OpenWait* top = t.innermost();
  EXPECT_TRUE(t.recorded(*top));
  EXPECT_EQ(begin(t, 5000, 20), nullptr);
  EXPECT_EQ(t.depth(), kMaxOpenWaits);
  EXPECT_FALSE(t.recorded(*top));
  EXPECT_EQ(t.pop(), top);
}

}  // namespace
}  // namespace omprof::openmp
