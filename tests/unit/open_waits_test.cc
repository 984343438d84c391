// libomp's exact waits (collector/openmp/open_waits.h), replaying OMPT event sequences as
// collector/ompt/exact_waits.cc delivers them, with designed times and a designed team: a
// barrier's imbalance and its synchronization, a worker's join in barrier and idle, a wait that
// runs tasks (paused, placed where it was, not split), libomp 14's misnamed untied resumption, a
// failed test_lock, a full stack, what a live reader sees of waits still open.
#include "collector/openmp/open_waits.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "proto/state_codes.h"

namespace omprof::openmp {
namespace {

// A team's shared table: the spans each thread published per barrier, and the regions that ended.
struct Team {
  std::map<uint64_t, std::map<uint32_t, uint64_t>> spans;
  std::map<uint32_t, uint64_t> region_ends;
  // By the region a worker waits since: the fork that wakes it, and its fork record and team.
  struct Fork {
    uint64_t ns, fork_id;
    uint32_t team;
  };
  std::map<uint32_t, Fork> waking_forks;
};

// One thread's view of the team (as ProcessTeam in exact_waits.cc: its own registry index).
class TeamOf final : public TeamFacts {
 public:
  TeamOf(Team& team, uint32_t thread) : team_(team), thread_(thread) {}
  uint64_t barrier_key(uint32_t instance, uint32_t number) const override {
    return instance ? (uint64_t(instance) << 20) | number : 0;
  }
  void publish_span(uint64_t key, uint64_t span_ns) override {
    team_.spans[key][thread_] = span_ns;
  }
  uint64_t longest_span(uint64_t key, uint64_t own_span_ns) const override {
    uint64_t longest = own_span_ns;
    for (const auto& [thread, span] : team_.spans[key]) longest = std::max(longest, span);
    return longest;
  }
  bool region_ended(uint32_t instance, uint64_t* end_ns) const override {
    const auto it = team_.region_ends.find(instance);
    if (it == team_.region_ends.end()) return false;
    *end_ns = it->second;
    return true;
  }
  uint64_t waking_fork(uint32_t instance, uint32_t thread_num, uint64_t* fork_id) const override {
    const auto it = team_.waking_forks.find(instance);
    if (it == team_.waking_forks.end() || thread_num >= it->second.team) return 0;
    *fork_id = it->second.fork_id;
    return it->second.ns;
  }

 private:
  Team& team_;
  uint32_t thread_;
};

struct Part {
  uint64_t codeptr;
  uint32_t state;
  uint64_t ns;
};
struct Piece {
  uint64_t end_ns;
  uint64_t ns;
  uint32_t state;
};

// A thread's wait table and timeline, in the order they were written.
class Recorder final : public WaitSink {
 public:
  void record(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) override {
    parts.push_back({codeptr, ctx.omp_state, ns});
  }
  void place(uint64_t end_ns, uint64_t ns, const SampleContext& ctx) override {
    timeline.push_back({end_ns, ns, ctx.omp_state});
  }
  std::vector<Part> parts;
  std::vector<Piece> timeline;
};

class Collect final : public WaitParts {
 public:
  void part(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) override {
    parts.push_back({codeptr, ctx.omp_state, ns});
  }
  std::vector<Part> parts;
};

bool operator==(const Part& a, const Part& b) {
  return a.codeptr == b.codeptr && a.state == b.state && a.ns == b.ns;
}
bool operator==(const Piece& a, const Piece& b) {
  return a.end_ns == b.end_ns && a.ns == b.ns && a.state == b.state;
}
std::ostream& operator<<(std::ostream& o, const Part& p) {
  return o << "{codeptr " << p.codeptr << ", state " << p.state << ", " << p.ns << " ns}";
}
std::ostream& operator<<(std::ostream& o, const Piece& p) {
  return o << "{" << p.ns << " ns ending " << p.end_ns << ", state " << p.state << "}";
}

constexpr uint32_t kInstance = 7;
constexpr uint64_t kConstruct = 0x4010;
int g_task_a, g_task_b, g_implicit, g_untied;

WaitStart barrier(uint32_t state, const void* task = &g_implicit,
                  BarrierRole role = BarrierRole::kOther, uint64_t codeptr = kConstruct) {
  WaitStart s;
  s.codeptr = codeptr;
  s.ctx.omp_state = state;
  s.task = task;
  s.region_instance = kInstance;
  s.role = role;
  s.is_barrier = true;
  return s;
}

WaitStart lock(uint64_t wait_id) {
  WaitStart s;
  s.codeptr = kConstruct;
  s.ctx.omp_state = format::kWaitLock;
  s.is_mutex = true;
  s.wait_id = wait_id;
  return s;
}

WaitStart taskwait() {
  WaitStart s;
  s.codeptr = kConstruct;
  s.ctx.omp_state = format::kWaitTaskwait;
  s.task = &g_task_a;
  return s;
}

TEST(OpenWaits, ABarriersImbalanceIsWaitingAndItsReleaseIsSynchronization) {
  // Both threads begin the region at 1,000. Thread 0 arrives at 1,500 (span 500), thread 1 at
  // 3,000 (span 2,000); both leave at 3,100. Thread 0 waited 1,600: 1,500 for thread 1's work,
  // 100 the release; thread 1 waited only the release.
  Team team;
  TeamOf view0(team, 0), view1(team, 1);
  OpenWaits t0, t1;
  Recorder r0, r1;
  t0.region_began(1000);
  t1.region_began(1000);
  ASSERT_TRUE(t0.begin(barrier(format::kWaitBarrierExplicit), 1500, view0));
  ASSERT_TRUE(t1.begin(barrier(format::kWaitBarrierExplicit), 3000, view1));
  EXPECT_TRUE(t1.end(3100, view1, r1).closed);
  EXPECT_TRUE(t0.end(3100, view0, r0).closed);
  EXPECT_EQ(r0.parts, (std::vector<Part>{{kConstruct, format::kWaitBarrierExplicit, 1500},
                                         {kConstruct, format::kOverheadBarrier, 100}}));
  EXPECT_EQ(r1.parts, (std::vector<Part>{{kConstruct, format::kOverheadBarrier, 100}}));
  // On the timeline in the order they happened: waiting to 3,000, the release to 3,100.
  EXPECT_EQ(r0.timeline, (std::vector<Piece>{{3000, 1500, format::kWaitBarrierExplicit},
                                             {3100, 100, format::kOverheadBarrier}}));
  EXPECT_EQ(t0.depth(), 0);

  // The next barrier's spans count from the departure, in a slot of its own: thread 0 now
  // works longer (3,100 to 5,100) and thread 1 waits for it.
  ASSERT_TRUE(t1.begin(barrier(format::kWaitBarrierExplicit), 3600, view1));
  ASSERT_TRUE(t0.begin(barrier(format::kWaitBarrierExplicit), 5100, view0));
  t0.end(5150, view0, r0);
  t1.end(5150, view1, r1);
  EXPECT_EQ(r1.parts.back(), (Part{kConstruct, format::kOverheadBarrier, 50}));
  EXPECT_EQ(r1.parts[r1.parts.size() - 2], (Part{kConstruct, format::kWaitBarrierExplicit, 1500}));
}

TEST(OpenWaits, ARegionEndBarriersSynchronizationIsTheJoins) {
  // The master's region-end barrier: its synchronization beyond the imbalance is the join's
  // (overhead), not a barrier's own.
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  t.region_began(1000);
  ASSERT_TRUE(
      t.begin(barrier(format::kWaitBarrierImplicitParallel, &g_implicit, BarrierRole::kMasterJoin),
              1200, view));
  const EndedWait ended = t.end(1500, view, r);
  EXPECT_TRUE(ended.closed);
  EXPECT_EQ(ended.role, BarrierRole::kMasterJoin);
  EXPECT_EQ(ended.region_instance, kInstance);
  EXPECT_EQ(r.parts, (std::vector<Part>{{kConstruct, format::kOverhead, 300}}));
}

// Thread 1 reaches the region's end at 2,000, the master at 5,000 (spans 1,000 and 4,000); the
// master ends the region at 6,000.
struct TwoMemberJoin {
  Team team;
  TeamOf view0{team, 0}, view1{team, 1};
  OpenWaits master, worker;
  TwoMemberJoin() {
    master.region_began(1000);
    worker.region_began(1000);
    WaitStart join =
        barrier(format::kWaitBarrierImplicit, &g_implicit, BarrierRole::kWorkerJoin, 0);
    join.ctx.omp_thread_num = 1;
    EXPECT_TRUE(worker.begin(join, 2000, view1));
    EXPECT_TRUE(master.begin(barrier(format::kWaitBarrierImplicitParallel), 5000, view0));
    team.region_ends[kInstance] = 6000;
  }
};

TEST(OpenWaits, AWorkersJoinIsBarrierUntilItsRegionEndedAndIdleAfter) {
  // The next region wakes thread 1 at 9,000 (its fork not known).
  TwoMemberJoin j;
  Recorder r;
  const EndedWait ended = j.worker.end(9000, j.view1, r);
  EXPECT_EQ(ended.role, BarrierRole::kWorkerJoin);
  // At the barrier 2,000-6,000: 3,000 waiting for the master's work, 1,000 the join; idle after.
  EXPECT_EQ(r.parts, (std::vector<Part>{{0, format::kWaitBarrierImplicit, 3000},
                                        {0, format::kOverhead, 1000},
                                        {0, format::kIdleDerived, 3000}}));
  EXPECT_EQ(r.timeline, (std::vector<Piece>{{5000, 3000, format::kWaitBarrierImplicit},
                                            {6000, 1000, format::kOverhead},
                                            {9000, 3000, format::kIdleDerived}}));
}

TEST(OpenWaits, AWorkersJoinIsIdleUntilTheForkThatWakesItThenThatRegionsForkOverhead) {
  // As above, and the master forks the next region (record 3) at 8,000: thread 1, asleep or
  // preempted, runs again at 9,000. Before the fork it was idle; after it, being woken.
  TwoMemberJoin j;
  Recorder r;
  j.team.waking_forks[kInstance] = {8000, 3, 2};
  Collect live;  // a live reader at 8,500: woken for 500 so far
  j.worker.so_far(8500, j.view1, live);
  EXPECT_EQ(live.parts, (std::vector<Part>{{0, format::kWaitBarrierImplicit, 3000},
                                           {0, format::kOverhead, 1000},
                                           {0, format::kIdleDerived, 2000},
                                           {0, format::kOverhead, 500}}));
  j.worker.end(9000, j.view1, r);
  EXPECT_EQ(r.parts, (std::vector<Part>{{0, format::kWaitBarrierImplicit, 3000},
                                        {0, format::kOverhead, 1000},
                                        {0, format::kIdleDerived, 2000},
                                        {0, format::kOverhead, 1000}}));
  EXPECT_EQ(r.timeline, (std::vector<Piece>{{5000, 3000, format::kWaitBarrierImplicit},
                                            {6000, 1000, format::kOverhead},
                                            {8000, 2000, format::kIdleDerived},
                                            {9000, 1000, format::kOverhead}}));
}

// Thread 1 alone at its region's end barrier from 2,000 (no other span: all of it the join's),
// the region ending at 6,000, the fork `waking` noted, the worker awake at 9,000: its parts.
std::vector<Part> lone_workers_join(const Team::Fork& waking) {
  Team team;
  TeamOf view1(team, 1);
  OpenWaits worker;
  Recorder r;
  WaitStart join = barrier(format::kWaitBarrierImplicit, &g_implicit, BarrierRole::kWorkerJoin, 0);
  join.ctx.omp_thread_num = 1;
  worker.region_began(1000);
  EXPECT_TRUE(worker.begin(join, 2000, view1));
  team.region_ends[kInstance] = 6000;
  team.waking_forks[kInstance] = waking;
  worker.end(9000, view1, r);
  return r.parts;
}

TEST(OpenWaits, AWorkersWakingForkBeforeItsRegionEndedIsNotItsWaking) {
  // A fork noted before the region's end (another team's, or a stale record) wakes nothing:
  // idle from 6,000 to the wake.
  EXPECT_EQ(lone_workers_join({5000, 3, 2}),
            (std::vector<Part>{{0, format::kOverhead, 4000}, {0, format::kIdleDerived, 3000}}));
}

TEST(OpenWaits, AWorkerLeftOutOfItsTeamsNextRegionStaysIdle) {
  // The next region (at 8,000) has a team of 1: thread 1 is not in it, and stays idle until a
  // later fork wakes it (the runtime's next team with it).
  EXPECT_EQ(lone_workers_join({8000, 3, 1}),
            (std::vector<Part>{{0, format::kOverhead, 4000}, {0, format::kIdleDerived, 3000}}));
}

TEST(OpenWaits, AWorkersJoinWhoseRegionEndIsUnknownIsAllBarrier) {
  Team team;
  TeamOf view(team, 1);
  OpenWaits worker;
  Recorder r;
  ASSERT_TRUE(
      worker.begin(barrier(format::kWaitBarrierImplicit, &g_implicit, BarrierRole::kWorkerJoin, 0),
                   2000, view));  // no synchronization point: no span
  worker.end(2500, view, r);
  EXPECT_EQ(r.parts, (std::vector<Part>{{0, format::kWaitBarrierImplicit, 500}}));
}

TEST(OpenWaits, AWaitThatRunsTasksPausesIsPlacedWhereItWasAndIsNotSplit) {
  // A barrier 1,000 to 3,000 on the implicit task; task A runs in it 1,400 to 2,400 and runs
  // task B inline (1,800): the wait is 400 + 600, not split (the spans say nothing of tasks).
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  t.region_began(500);
  ASSERT_TRUE(t.begin(barrier(format::kWaitBarrierExplicit), 1000, view));
  ASSERT_TRUE(t.switch_moves_wait(&g_task_a));
  t.task_switch(&g_task_a, 1400, r);
  EXPECT_FALSE(t.switch_moves_wait(&g_task_b));  // between other tasks: no clock read
  t.task_switch(&g_task_b, 1800, r);
  EXPECT_FALSE(t.switch_moves_wait(&g_task_a));
  ASSERT_TRUE(t.switch_moves_wait(&g_implicit));
  t.task_switch(&g_implicit, 2400, r);
  t.end(3000, view, r);
  EXPECT_EQ(r.parts, (std::vector<Part>{{kConstruct, format::kWaitBarrierExplicit, 1000}}));
  EXPECT_EQ(r.timeline, (std::vector<Piece>{{1400, 400, format::kWaitBarrierExplicit},
                                            {3000, 600, format::kWaitBarrierExplicit}}));
}

TEST(OpenWaits, AnUntiedTaskResumedFromABarrierPausesTheWaitWhateverTheRuntimeNamesAsPrior) {
  // libomp 14 at a barrier: switches to untied task U (1,200), back to the implicit task
  // (1,300), then resumes U naming U as the prior task (1,350: next is U again), and U runs to
  // 2,000. Only the switches' next task counts: the wait is 200 + 50 + 500.
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  ASSERT_TRUE(t.begin(barrier(format::kWaitBarrierImplicitParallel), 1000, view));
  t.task_switch(&g_untied, 1200, r);
  t.task_switch(&g_implicit, 1300, r);
  t.task_switch(&g_untied, 1350, r);  // prior named U, next U
  t.task_switch(&g_implicit, 2000, r);
  t.end(2500, view, r);
  EXPECT_EQ(r.parts, (std::vector<Part>{{kConstruct, format::kWaitBarrierImplicitParallel, 750}}));
}

TEST(OpenWaits, AFailedTestLockWaitedForNothing) {
  // omp_test_lock fails: a mutex wait begins and no "acquired" follows. The next wait drops it.
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  ASSERT_TRUE(t.begin(lock(42), 100, view));
  ASSERT_TRUE(t.begin(barrier(format::kWaitBarrierExplicit), 200, view));
  EXPECT_EQ(t.depth(), 1);
  EXPECT_EQ(t.outermost().ctx.omp_state, format::kWaitBarrierExplicit);
  t.end(300, view, r);
  EXPECT_EQ(r.parts, (std::vector<Part>{{kConstruct, format::kWaitBarrierExplicit, 100}}));
}

TEST(OpenWaits, AMutexWaitEndsOnlyWhenItsOwnLockIsAcquired) {
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  ASSERT_TRUE(t.begin(lock(42), 100, view));
  EXPECT_FALSE(t.end_mutex(43, 150, view, r));
  EXPECT_EQ(t.depth(), 1);
  EXPECT_FALSE(t.switch_moves_wait(&g_task_a));  // a lock wait runs no task
  EXPECT_TRUE(t.end_mutex(42, 400, view, r));
  EXPECT_EQ(r.parts, (std::vector<Part>{{kConstruct, format::kWaitLock, 300}}));
  EXPECT_EQ(t.depth(), 0);
}

TEST(OpenWaits, AFullStackRefusesTheNextWaitAndShutdownClosesTheRestInnermostFirst) {
  Team team;
  TeamOf view(team, 0);
  OpenWaits t;
  Recorder r;
  for (int i = 0; i < kMaxOpenWaits; ++i) ASSERT_TRUE(t.begin(taskwait(), 1000 + 100 * i, view));
  EXPECT_FALSE(t.begin(taskwait(), 9000, view));
  t.close_all(10000, view, r);
  ASSERT_EQ(r.parts.size(), size_t(kMaxOpenWaits));
  EXPECT_EQ(r.parts.front().ns, 10000u - (1000 + 100 * (kMaxOpenWaits - 1)));
  EXPECT_EQ(r.parts.back().ns, 9000u);
  EXPECT_EQ(t.depth(), 0);
}

TEST(OpenWaits, ALiveReaderSeesTheWaitsSoFarAndLeavesThemOpen) {
  Team team;
  TeamOf view0(team, 0), view1(team, 1);
  OpenWaits worker;
  worker.region_began(1000);
  ASSERT_TRUE(
      worker.begin(barrier(format::kWaitBarrierImplicit, &g_implicit, BarrierRole::kWorkerJoin, 0),
                   2000, view1));
  team.region_ends[kInstance] = 3000;
  Collect live;
  worker.so_far(5000, view1, live);
  EXPECT_EQ(live.parts,
            (std::vector<Part>{{0, format::kOverhead, 1000}, {0, format::kIdleDerived, 2000}}));
  EXPECT_EQ(worker.depth(), 1);
  Recorder r;
  worker.end(8000, view1, r);
  EXPECT_EQ(r.parts.back(), (Part{0, format::kIdleDerived, 5000}));
}

}  // namespace
}  // namespace omprof::openmp
