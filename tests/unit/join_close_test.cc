// libgomp's end-of-region wait (collector/openmp/join_close.h, open_waits.h open_join),
// replaying the wrappers' event sequences with designed clocks: member_end opens it, a task run
// at the barrier pauses it, the master's join or a worker's next region closes it; what its time
// off the CPU was.
#include "collector/openmp/join_close.h"

#include <gtest/gtest.h>

#include "collector/openmp/open_waits.h"

namespace omprof::openmp {
namespace {

int g_join_implicit_task, g_join_task;

// The thread's open waits with its end-of-region wait opened at `now` (CPU `cpu`).
void open_at(OpenWaits& t, uint64_t now, uint64_t cpu) {
  t.open_join(&g_join_implicit_task, SampleContext{}, BarrierRole::kMasterJoin, Measure::kOffCpu,
              now, cpu);
}

TEST(JoinClose, TheMastersJoinIsForkOverheadThenWaitingThenReleaseOverhead) {
  // member_end at 1,000 (CPU 100), join at 2,000 (CPU 600): 500 off the CPU. Every member had
  // begun at 1,050, this body lasted 100 (fork until 1,150); all had ended at 1,800 (release
  // from then): 350 of the 1,000 wall is overhead, 175 of the 500 off the CPU.
  OpenWaits t;
  open_at(t, 1000, 100);
  ASSERT_NE(t.join(), nullptr);
  const JoinPiece c = t.join_piece(2000, 600);
  t.close_join();
  EXPECT_EQ(t.join(), nullptr);
  EXPECT_TRUE(c.recorded);
  EXPECT_EQ(c.start_ns, 1000u);
  EXPECT_EQ(c.off_ns, 500u);
  JoinFacts f;
  f.all_begun_known = true, f.all_begun_ns = 1050, f.body_ns = 100, f.all_ended_ns = 1800;
  const JoinParts p = split_join(c.off_ns, c.start_ns, 2000, f);
  EXPECT_EQ(p.woken_ns, 0u);
  EXPECT_EQ(p.idle_ns, 0u);
  EXPECT_EQ(p.overhead_ns, 175u);
  EXPECT_EQ(p.release_ns, 100u);  // last: the fork's 75 come before the waiting
  EXPECT_EQ(p.waiting_ns, 325u);
  EXPECT_EQ(p.barrier_end_ns, 2000u);
}

TEST(JoinClose, AWorkerAfterItsRegionEndedWasIdleThenWokenThenAtTheBarrierBefore) {
  // A worker's body ended at 1,000; its region ended at 1,400; the next region was forked at
  // 1,900 and the worker began it at 2,000, having run 100 of the 1,000 on the CPU: 900 off
  // it. It sleeps last: woken 100 (1,900-2,000), idle 500 (1,400-1,900), 300 at the barrier.
  OpenWaits t;
  open_at(t, 1000, 50);
  const JoinPiece c = t.join_piece(2000, 150);
  ASSERT_EQ(c.off_ns, 900u);
  JoinFacts f;
  f.region_ended = true, f.region_end_ns = 1400, f.next_fork_ns = 1900;
  f.all_begun_known = true, f.all_begun_ns = 900, f.body_ns = 50, f.all_ended_ns = 1200;
  const JoinParts p = split_join(c.off_ns, c.start_ns, 2000, f);
  EXPECT_EQ(p.woken_ns, 100u);
  EXPECT_EQ(p.idle_ns, 500u);
  // At the barrier 1,000-1,400: the fork had completed (900 + 50 < 1,000); release from 1,200,
  // 200 of 400 wall: half of the 300.
  EXPECT_EQ(p.barrier_end_ns, 1400u);
  EXPECT_EQ(p.overhead_ns, 150u);
  EXPECT_EQ(p.waiting_ns, 150u);
  EXPECT_EQ(p.woken_ns + p.idle_ns + p.overhead_ns + p.waiting_ns, c.off_ns);
}

TEST(JoinClose, AWorkerClosedWithoutANextRegionWasIdleSinceTheEnd) {
  // Shutdown (or a task it runs) closes the span: no next fork, all of it after the end idle.
  JoinFacts f;
  f.region_ended = true, f.region_end_ns = 1200;
  const JoinParts p = split_join(700, 1000, 2000, f);
  EXPECT_EQ(p.woken_ns, 0u);
  EXPECT_EQ(p.idle_ns, 700u);
  EXPECT_EQ(p.overhead_ns + p.waiting_ns, 0u);
  // The region's slot reused (facts unknown): all waiting, none overhead.
  const JoinParts q = split_join(700, 1000, 2000, JoinFacts{});
  EXPECT_EQ(q.waiting_ns, 700u);
  EXPECT_EQ(q.barrier_end_ns, 2000u);
}

TEST(JoinClose, ATaskRunAtTheBarrierPausesTheWaitAndItsWaitsDoNotUnrecordIt) {
  // member_end at 1,000 (CPU 50); task_begin at 1,300 (CPU 150): the piece so far has 200 off the
  // CPU; the task runs to 1,700 (preempted 150 of it: the task's, never the barrier's) and takes a
  // taskwait; task_end resumes the wait afresh (CPU 350); the join at 2,000 (CPU 400) closes it
  // with 250 off.
  OpenWaits t;
  open_at(t, 1000, 50);
  const JoinPiece before = t.join_piece(1300, 150);
  EXPECT_TRUE(before.recorded);
  EXPECT_EQ(before.off_ns, 200u);
  ASSERT_TRUE(t.switch_moves_wait(&g_join_task));
  t.pause_clocked();
  (void)t.begin_clocked(&g_join_task, 0, format::kInTaskwait, Measure::kOffCpu, 1500, 200);
  (void)t.pop();
  ASSERT_TRUE(t.switch_moves_wait(&g_join_implicit_task));
  t.resume_clocked(1700, 350);
  const JoinPiece after = t.join_piece(2000, 400);
  EXPECT_TRUE(after.recorded);
  EXPECT_EQ(after.start_ns, 1700u);
  EXPECT_EQ(after.off_ns, 250u);
  // A wait begun inside it without a task that paused it (a taskloop's task's: the trampoline
  // did not see it) leaves it unrecorded: the thread's time off the CPU there may be that task's.
  (void)t.begin_clocked(&g_join_task, 0, format::kInTaskwait, Measure::kOffCpu, 2100, 420);
  (void)t.pop();
  const JoinPiece nested = t.join_piece(2500, 450);
  EXPECT_FALSE(nested.recorded);
  EXPECT_EQ(nested.off_ns, 700u);
}

TEST(JoinClose, ClocksThatRunBackwardsGiveNothingOffTheCpu) {
  OpenWaits t;
  open_at(t, 1000, 900);
  EXPECT_EQ(t.join_piece(1500, 1600).off_ns, 0u);
  EXPECT_EQ(split_join(0, 1000, 1500, JoinFacts{}).waiting_ns, 0u);
}

}  // namespace
}  // namespace omprof::openmp
