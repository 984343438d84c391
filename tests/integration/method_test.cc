// The measurement method against designed programs: periodic programs whose period is a
// multiple of the sampling period (where a fixed-interval sampler phase-locks), for each clock
// and more than one rate. Tolerances come from the profile's own sample count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <tuple>

#include "harness.h"
#include "omp/states.h"

namespace omprof::test {
namespace {

struct Periodic {
  std::string clock;
  int rate_hz;
  int period_ms;
};

void PrintTo(const Periodic& c, std::ostream* os) {
  *os << c.clock << " " << c.rate_hz << " Hz, period " << c.period_ms << " ms";
}

class PeriodicProgram : public ::testing::TestWithParam<Periodic> {};

// a() takes 60% and b() 40% of every step's CPU time, as the program itself measures.
TEST_P(PeriodicProgram, SharesMatchTheProgramsOwnMeasurement) {
  const Periodic c = GetParam();
  if (c.clock == "task" && !task_clock_usable())
    GTEST_SKIP() << "perf_event task-clock not available";
  const std::string dir = fresh_dir("periodic_" + c.clock + std::to_string(c.rate_hz) + "_" +
                                    std::to_string(c.period_ms));
  const int steps = 2500 / c.period_ms;  // 2.5 s of CPU time
  RunResult r =
      run({OMPROF_BIN, "run", "-o", dir, "--clock", c.clock, "--rate", std::to_string(c.rate_hz),
           "--", program("periodic"), std::to_string(c.period_ms), std::to_string(steps)});
  const PeriodicShares s = expect_periodic_shares(r, dir);
  // Every sample stands for the time since the previous one: the total is the CPU time.
  EXPECT_NEAR(s.in_a_s + s.in_b_s, s.a_s + s.b_s, 0.03 * (s.a_s + s.b_s) + 2.0 / c.rate_hz);
}

std::string name(const ::testing::TestParamInfo<Periodic>& i) {
  return i.param.clock + "_" + std::to_string(i.param.rate_hz) + "Hz_period" +
         std::to_string(i.param.period_ms) + "ms";
}

// The cpu clock's timers fire on kernel ticks, so it runs at the default rate only; the
// hrtimer-driven clocks also at 1 kHz, where the sampling period divides every program period.
INSTANTIATE_TEST_SUITE_P(Clocks, PeriodicProgram,
                         ::testing::Values(Periodic{"cpu", 200, 5}, Periodic{"cpu", 200, 10},
                                           Periodic{"cpu", 200, 20}, Periodic{"task", 200, 10},
                                           Periodic{"task", 1000, 5}, Periodic{"task", 1000, 10},
                                           Periodic{"task", 1000, 20}, Periodic{"wall", 200, 10},
                                           Periodic{"wall", 1000, 5}, Periodic{"wall", 1000, 20}),
                         name);

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

struct WaitCase {
  std::string compiler;  // clang, gcc (on libgomp), gcc_libomp (the gcc build run on libomp)
  std::string policy;    // OMP_WAIT_POLICY
  bool busy;
};

void PrintTo(const WaitCase& c, std::ostream* os) {
  *os << c.compiler << ", OMP_WAIT_POLICY=" << c.policy << (c.busy ? ", busy machine" : "");
}

std::string wait_case_name(const ::testing::TestParamInfo<WaitCase>& i) {
  return i.param.compiler + "_" + i.param.policy + (i.param.busy ? "_busy" : "");
}

class WaitPolicy : public ::testing::TestWithParam<WaitCase> {
 public:
  RunResult profile(const std::string& name, const std::vector<std::string>& args,
                    format::Profile& out) {
    const WaitCase c = GetParam();
    const std::string dir = fresh_dir(name + "_" + wait_case_name({c, 0}));
    const bool swapped = c.compiler == "gcc_libomp";
    std::vector<std::string> argv = {OMPROF_BIN, "run", "-o", dir};
    if (swapped) argv.push_back("--omp-runtime=libomp");
    argv.push_back("--");
    argv.push_back(program(name + "_" + (swapped ? std::string("gcc") : c.compiler)));
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r;
    {
      std::unique_ptr<BusyProcess> busy(c.busy ? new BusyProcess : nullptr);
      r = run(argv, {{"OMP_WAIT_POLICY", c.policy}});
    }
    EXPECT_EQ(r.status, 0) << r.err;
    out = only_profile(dir);
    return r;
  }
};

// Designed 60% work / 40% wait of thread time, measured by the program itself in wall time.
void expect_work_share_of_omp_work_wait(WaitPolicy& t) {
  format::Profile p;
  RunResult r = t.profile("omp_work_wait", {"10", "150"}, p);
  double truth = 0, elapsed = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "work_share=%lf elapsed=%lf", &truth, &elapsed), 2) << r.out;
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t work = 0, wait = 0;
  for (const auto& s : m.samples) (omp::is_wait(s.state) ? wait : work) += s.weight_ns;
  const double share = double(work) / double(work + wait);
  EXPECT_NEAR(share, truth, 0.05) << "work " << work * 1e-9 << " s, wait " << wait * 1e-9 << " s";
  // A sanity check of the design only (the assertion above compares with what the program
  // measured): an overloaded machine stretches the work phases of one thread and not the other.
  EXPECT_NEAR(truth, 0.6, 0.15) << "the program did not run as designed";
}

TEST_P(WaitPolicy, WorkAndWaitAreSharesOfThreadTime) {
  expect_work_share_of_omp_work_wait(*this);
}

// A competing busy process: threads lose the CPU in work and in waits alike.
class BusyMachine : public WaitPolicy {};
TEST_P(BusyMachine, WorkAndWaitAreSharesOfThreadTime) {
  expect_work_share_of_omp_work_wait(*this);
}

// The lock and taskwait cases are designed for a quiet machine: on a busy one, who gets the lock
// and how long the child task takes depend on the scheduler.

// Two threads contend for one lock (critical_loop: omp critical, lock_loop: omp lock). Who gets
// it when depends on the lock's fairness and the scheduler (alternating turns: each waits about
// half of its loop; one thread keeping it: a quarter of the pair's time), so the program
// measures the waits' share of its threads' time in each loop, and the profile must agree.
TEST_P(WaitPolicy, LockWaitIsTheShareTheProgramMeasured) {
  format::Profile p;
  const RunResult r = profile("omp_contention", {}, p);
  std::map<std::string, double> truth;
  {
    std::istringstream lines(r.out);
    char name[64];
    double share = 0;
    for (std::string line; std::getline(lines, line);)
      if (std::sscanf(line.c_str(), "%63s %lf", name, &share) == 2) truth[name] = share;
  }
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  for (const char* fn : {"critical_loop", "lock_loop"}) {
    uint64_t total = 0, lock_wait = 0, off_cpu = 0, other_wait = 0, samples = 0;
    for (const auto& s : m.samples) {
      if (!has_frame(s.stack, fn)) continue;
      total += s.weight_ns;
      samples += s.count;
      if (s.stack.front().name == "<omp:lock-wait>")
        lock_wait += s.weight_ns;
      else if (s.state == omp::kStateOffCpu)
        off_cpu += s.weight_ns;
      else if (omp::is_wait(s.state))
        other_wait += s.weight_ns;
    }
    ASSERT_GT(total, 0u) << fn;
    ASSERT_TRUE(truth.count(fn)) << r.out;
    // Lock waits are exact; work is sampled. Stratified sampling puts each visit to the work
    // (120: 60 turns x 2 threads) off by less than one period, a standard deviation of at most
    // half a period each: the work W is off by sd <= P sqrt(120) / 2, and the share L / (L + W)
    // by share x sd / total. Four of those, and 0.01 for the thread's off-CPU time, which is
    // spread over all its work.
    const double share = truth[fn], period_s = double(p.header.period_ns()) * 1e-9;
    const double sd = share * period_s * std::sqrt(120.0) / 2 / (double(total) * 1e-9);
    EXPECT_NEAR(double(lock_wait) / double(total), share, 4 * sd + 0.01)
        << fn << ": total " << total * 1e-9 << " s, off-CPU " << off_cpu * 1e-9 << " s, other wait "
        << other_wait * 1e-9 << " s, lock wait " << lock_wait * 1e-9 << " s, " << samples
        << " samples";
  }
}

// The master waits about 5 x (150 - 20) ms at a taskwait while the other thread runs the child;
// the program measures how long it really waited (longer when the machine is busy).
TEST_P(WaitPolicy, TaskwaitIsTheTimeTheMasterWaited) {
  format::Profile p;
  RunResult r = profile("omp_taskwait", {}, p);
  double waited = 0, master_ran = 0, child_wall = 0, waited_cpu = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(),
                        "taskwait_wall=%lf master_ran_child=%lf child_wall=%lf taskwait_cpu=%lf",
                        &waited, &master_ran, &child_wall, &waited_cpu),
            4)
      << r.out;
  EXPECT_GT(waited, 0.2) << "the program did not run as designed";
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t taskwait = 0;
  for (const auto& s : m.samples)
    if (s.stack.front().name == "<omp:taskwait>" && p.threads.at(s.thread).is_main())
      taskwait += s.weight_ns;
  // Taskwait is sampled (format 1.7): each of the 5 visits is off by less than a period
  // (stratified sampling, sd <= P/2 each), time off the CPU in it stays a taskwait; four
  // standard deviations, and 3% for the program's own clock reads around the construct. The
  // thread's time off the CPU is spread over all its samples in proportion (docs/semantics.md):
  // on a loaded machine a spinning taskwait that yields loses the CPU more than the work does,
  // so the lower bound also allows the taskwaits' own off-CPU time (wall minus CPU, measured by
  // the program); the upper bound stays strict.
  const double period_s = double(p.header.period_ns()) * 1e-9;
  const double edge = 0.03 * waited + 4 * period_s * std::sqrt(5.0) / 2;
  EXPECT_LE(double(taskwait) * 1e-9, waited + edge);
  EXPECT_GE(double(taskwait) * 1e-9, waited - edge - std::max(0.0, waited - waited_cpu))
      << "the program's taskwaits: " << waited << " s wall, " << waited_cpu << " s CPU";
}

// Exact waits are timed with the TSC where the kernel keeps time with it, else with
// CLOCK_MONOTONIC (docs/semantics.md, "Clocks"); OMPROF_TSC chooses. Both must give the share
// the program measured, and the profile says which clock it read, with no note at the end.
TEST(WallClocks, ExactWaitsAgreeOnEitherClock) {
  const bool kernel_tsc =
      slurp("/sys/devices/system/clocksource/clocksource0/current_clocksource") == "tsc\n";
  for (const std::string tsc : {"0", "1"}) {
    if (tsc == "1" && !kernel_tsc) continue;  // the kernel did not vouch for the TSC here
    SCOPED_TRACE("OMPROF_TSC=" + tsc);
    const std::string dir = fresh_dir("wall_clock_" + tsc);
    const RunResult r =
        run({OMPROF_BIN, "run", "-o", dir, "--", program("omp_work_wait_clang"), "10", "150"},
            {{"OMPROF_TSC", tsc}});
    ASSERT_EQ(r.status, 0) << r.err;
    const format::Profile p = only_profile(dir);
    EXPECT_EQ(p.header.wall_clock(), tsc == "1" ? "tsc" : "clock_monotonic");
    EXPECT_EQ(p.header.wall_clock_note(), "");
    if (tsc == "0") {
      EXPECT_EQ(p.header.wall_clock_drift_ns(), 0);
    }
    double truth = 0, elapsed = 0;
    ASSERT_EQ(std::sscanf(r.out.c_str(), "work_share=%lf elapsed=%lf", &truth, &elapsed), 2)
        << r.out;
    viewer::Model m = viewer::build_model(p, omp::View::kUser);
    uint64_t work = 0, wait = 0;
    for (const auto& s : m.samples) (omp::is_wait(s.state) ? wait : work) += s.weight_ns;
    EXPECT_NEAR(double(work) / double(work + wait), truth, 0.05);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, WaitPolicy,
                         ::testing::Values(WaitCase{"clang", "active", false},
                                           WaitCase{"clang", "passive", false},
                                           WaitCase{"gcc", "active", false},
                                           WaitCase{"gcc", "passive", false},
                                           WaitCase{"gcc_libomp", "active", false},
                                           WaitCase{"gcc_libomp", "passive", false}),
                         wait_case_name);
INSTANTIATE_TEST_SUITE_P(Policies, BusyMachine,
                         ::testing::Values(WaitCase{"clang", "active", true},
                                           WaitCase{"clang", "passive", true},
                                           WaitCase{"gcc", "active", true},
                                           WaitCase{"gcc", "passive", true},
                                           WaitCase{"gcc_libomp", "passive", true}),
                         wait_case_name);

}  // namespace
}  // namespace omprof::test
