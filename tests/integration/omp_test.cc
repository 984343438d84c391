// OpenMP ground truth: programs whose imbalance, serial fraction, contention, nesting and
// tasking are designed, profiled under `omprof run`, checked in the user view. Each runs in a
// clang build (LLVM libomp, OMPT), a gcc build on GNU libgomp (the default: omprof's wrappers of
// its entry points) and the gcc build run on libomp (--omp-runtime=libomp, OMPT).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "harness.h"
#include "omp/accounting.h"
#include "omp/states.h"
#include "viewer/busy_machine.h"
#include "viewer/idle_blame.h"
#include "viewer/report.h"

namespace omprof::test {
namespace {

class Omp : public ::testing::TestWithParam<std::string> {
 protected:
  // The build: "clang" or "gcc".
  static std::string compiler() { return GetParam() == "clang" ? "clang" : "gcc"; }
  // The gcc build on GNU libgomp, without OMPT.
  static bool on_libgomp() { return GetParam() == "gcc"; }
  // `omprof run` and its options for this variant, up to the output directory.
  static std::vector<std::string> omprof_run(const std::string& dir) {
    std::vector<std::string> argv = {OMPROF_BIN, "run", "-o", dir};
    if (GetParam() == "gcc_libomp") argv.push_back("--omp-runtime=libomp");
    return argv;
  }

  // Runs PROGRAM_<compiler> under omprof and returns its profile.
  format::Profile profile(const std::string& name, std::vector<std::string> args = {},
                          std::vector<std::string> opts = {}) {
    const std::string dir = fresh_dir(name + dir_tag_ + "_" + GetParam());
    std::vector<std::string> argv = omprof_run(dir);
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.push_back("--");
    argv.push_back(program(name + "_" + compiler()));
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = run(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    last_output_ = r.out;
    if (GetParam() == "gcc_libomp") {
      EXPECT_NE(r.err.find("on LLVM libomp instead of GNU libgomp"), std::string::npos) << r.err;
    }
    format::Profile p = only_profile(dir);
    if (on_libgomp()) {
      EXPECT_EQ(r.err.find("libomp"), std::string::npos) << r.err;
      EXPECT_FALSE(p.header.ompt_active());
      EXPECT_TRUE(p.header.off_cpu_waits()) << p.header.omp_note();
    } else {
      EXPECT_TRUE(p.header.ompt_active()) << p.header.omp_note();
    }
    return p;
  }

  std::string last_output_;  // the program's stdout in the last profile() call
  std::string
      dir_tag_;  // told apart in the output directory's name, if several runs of one program

  static void expect_clean_user_view(const format::Profile& p) {
    viewer::Model user = viewer::build_model(p, omp::View::kUser);
    for (const auto& s : user.samples)
      for (const auto& f : s.stack) {
        EXPECT_FALSE(f.runtime) << f.name;
        EXPECT_EQ(f.name.str().find("__kmp"), std::string::npos);
        EXPECT_EQ(f.name.str().find("GOMP_"), std::string::npos);
        EXPECT_EQ(f.name.str().find("libomp"), std::string::npos);
        EXPECT_NE(f.name, "start_thread");
      }
    viewer::Model machine = viewer::build_model(p, omp::View::kMachine);
    bool runtime_seen = false;
    for (const auto& s : machine.samples)
      for (const auto& f : s.stack) runtime_seen |= f.runtime;
    EXPECT_TRUE(runtime_seen) << "the machine view keeps the runtime's frames";
  }
};

// Samples whose user stack is not rooted at main or <omp:idle>: only an unwind that failed (or
// was truncated) may do that, and it must be rare. Prints them, so a failure says which.
void expect_rooted_at_main(const viewer::Model& m) {
  uint64_t other = 0;
  for (const auto& s : m.samples) {
    const std::string& root = s.stack.empty() ? std::string("<empty>") : s.stack.back().name.str();
    // Time off the CPU outside waits has no stack (omp/states.h, kStateOffCpu). Before main,
    // the loader runs constructors (rooted at _dl_start_user); after it, exit handlers run
    // under exit(), which libc calls as a no-return tail, so the unwinder stops there. Rare
    // samples there made this test fail now and then.
    // Runtime bookkeeping with no program frame on the stack (a worker in the runtime's own
    // loop) is overhead at the root, as idle is (format 1.7).
    if (root == "main" || root == "<omp:idle>" || root == "<off-cpu>" || root == "exit" ||
        root == "_dl_start_user" || root == "<omp:overhead>")
      continue;
    other += s.weight_ns;
    std::cout << "sample rooted at " << root << " (state " << s.state << "):";
    for (const auto& f : s.stack) std::cout << " " << f.name;
    std::cout << "\n";
    // A thread starting (omprof arming its clock, the runtime starting a worker) has no
    // program frame yet: "<omp runtime>" or "<thread start>", rare.
    EXPECT_TRUE(root == "<unwind failed>" || root == "<truncated>" || root == "<omp runtime>" ||
                root == "<thread start>")
        << root;
  }
  EXPECT_LE(double(other), 0.01 * double(m.total_weight_ns));
}

double designed_wait_share(int threads) {
  double sum = 0;
  for (int t = 0; t < threads; ++t) sum += double(threads - (t + 1));
  return sum / double(threads * threads);
}

bool is_barrier(uint32_t state) {
  return state >= 0x10 && state <= 0x16;
}

// `program_output`: omp_imbalance's own measurements (wait share and work wall time per thread,
// step by step): the truth the profile is held to. On a quiet machine they are the design
// (checked loosely: a busy machine stretches threads unevenly).
void check_imbalance(const format::Profile& p, int threads, const std::string& program_output) {
  std::map<std::string, double> measured;
  {
    std::istringstream lines(program_output);
    std::string key;
    double value = 0;
    while (lines >> key)
      if (key.rfind("measured_", 0) == 0 && lines >> value) measured[key] = value;
  }
  ASSERT_TRUE(measured.count("measured_wait_share")) << program_output;
  const double measured_share = measured["measured_wait_share"];
  EXPECT_NEAR(measured_share, designed_wait_share(threads), 0.15)
      << "the program did not run as designed";
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t total = 0, barrier = 0;
  std::map<uint32_t, uint64_t> work_by_thread_num;
  for (const auto& s : m.samples) {
    // The runtime's own cost (fork, join, barrier release) is not the imbalance the program
    // measures; a busy machine makes it large (docs/semantics.md, barrier overhead).
    if (s.fork_id == 0 || omp::is_overhead(s.state)) continue;
    total += s.weight_ns;
    if (is_barrier(s.state)) barrier += s.weight_ns;
    if (!omp::is_wait(s.state) && has_frame(s.stack, "spin_cpu"))
      work_by_thread_num[s.omp_thread_num] += s.weight_ns;
  }
  ASSERT_GT(total, 0u);
  const double share = double(barrier) / double(total);
  EXPECT_NEAR(share, measured_share, 0.05) << "barrier " << barrier << " of " << total;
  std::cout << "barrier-wait share " << share << ", measured " << measured_share << ", designed "
            << designed_wait_share(threads) << "\n";
  ASSERT_EQ(work_by_thread_num.size(), size_t(threads));
  const double work0 = measured["measured_work_wall_0"];
  ASSERT_GT(work0, 0.0) << program_output;
  for (int t = 1; t < threads; ++t) {
    const double ratio = measured["measured_work_wall_" + std::to_string(t)] / work0;
    EXPECT_NEAR(double(work_by_thread_num[uint32_t(t)]) / double(work_by_thread_num[0]), ratio,
                0.25 * ratio)
        << "thread " << t << ", designed " << t + 1;
  }
}

TEST_P(Omp, ImbalanceWaitShareMatchesDesign) {
  format::Profile p = profile("omp_imbalance", {"2"});
  check_imbalance(p, 2, last_output_);
  expect_clean_user_view(p);
  // The region's construct is found in imbalanced_step, under main.
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t in_region = 0;
  for (const auto& s : m.samples)
    if (s.fork_id && has_frame(s.stack, "imbalanced_step") && s.stack.back().name == "main")
      in_region += s.weight_ns;
  EXPECT_GT(double(in_region), 0.9 * double(m.total_weight_ns));
}

TEST_P(Omp, ImbalanceWithTheTaskClockAtOneKilohertz) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  format::Profile p = profile("omp_imbalance", {"2"}, {"--clock", "task", "--rate", "1000"});
  check_imbalance(p, 2, last_output_);
}

// A busy machine: a competing CPU-bound process stretches the threads' work unevenly, and a
// waiter may leave its barrier late (preempted, or woken late). The profile must still show
// the imbalance the program measured; the barrier's release and the join are overhead, left
// out as on a quiet machine. On libgomp this read 0.25 to 0.28 against the program's 0.19 to
// 0.20, before the region-end barrier was split at the last member's arrival.
TEST_P(Omp, ImbalanceBesideABusyProcess) {
  format::Profile p;
  {
    BusyProcess busy;
    p = profile("omp_imbalance", {"2"});
  }
  check_imbalance(p, 2, last_output_);
}

// The same imbalance at explicit barriers inside one region (on libgomp: split at the last
// member's arrival, collector/handler/barrier_arrivals.h), quiet and beside a busy process.
TEST_P(Omp, ExplicitBarrierImbalanceQuietAndBusy) {
  for (const bool busy : {false, true}) {
    SCOPED_TRACE(busy ? "beside a busy process" : "quiet");
    format::Profile p;
    {
      std::unique_ptr<BusyProcess> burner(busy ? new BusyProcess : nullptr);
      p = profile("omp_imbalance", {"2", "125", "4", "explicit"});
    }
    check_imbalance(p, 2, last_output_);
  }
}

TEST_P(Omp, ImbalanceWithMoreThreadsWhereCoresAllow) {
  for (int threads : {3, 4}) {
    if (sysconf(_SC_NPROCESSORS_ONLN) < threads) {
      std::cout << "skipping " << threads << " threads: only " << sysconf(_SC_NPROCESSORS_ONLN)
                << " cores\n";
      continue;
    }
    format::Profile p = profile("omp_imbalance", {std::to_string(threads), "60"});
    check_imbalance(p, threads, last_output_);
  }
}

TEST_P(Omp, SerialFractionAndIdleWorkers) {
  format::Profile p = profile("omp_serial");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t main_total = 0, main_serial = 0, parallel = 0, parallel_in_region = 0, worker_idle = 0,
           worker_barrier = 0;
  uint32_t main_thread = 0;
  for (const auto& [i, t] : p.threads)
    if (t.is_main()) main_thread = i;
  expect_rooted_at_main(m);
  for (const auto& s : m.samples) {
    ASSERT_FALSE(s.stack.empty());
    if (s.thread == main_thread) {
      main_total += s.weight_ns;
      if (has_frame(s.stack, "serial_part")) main_serial += s.weight_ns;
    } else {
      if (omp::is_idle(s.state)) worker_idle += s.weight_ns;
      if (s.state == 0x13 || s.state == 0x11) worker_barrier += s.weight_ns;
    }
    if (has_frame(s.stack, "parallel_part")) {
      parallel += s.weight_ns;
      bool region = false;
      for (const auto& f : s.stack) region |= omp::is_region_frame_name(f.name);
      if (region) {
        parallel_in_region += s.weight_ns;
      } else {  // around the fork and join, outside the region: legitimate, but rare
        std::cout << "outside the region (state " << s.state << "):";
        for (const auto& f : s.stack) std::cout << " " << f.name;
        std::cout << "\n";
      }
    }
  }
  EXPECT_NEAR(double(main_serial) / double(main_total), 0.4, 0.08);
  EXPECT_GT(parallel, 0u);
  EXPECT_GE(double(parallel_in_region), 0.97 * double(parallel));
  // Workers spin (KMP_BLOCKTIME) while the master runs serial code: that is idle time.
  EXPECT_GT(worker_idle, 50'000'000u);
  EXPECT_GT(worker_idle, worker_barrier);
  expect_clean_user_view(p);
}

TEST_P(Omp, ContentionShowsLockWaitInTheRightFunction) {
  format::Profile p = profile("omp_contention");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  for (const char* fn : {"critical_loop", "lock_loop"}) {
    uint64_t total = 0, lock_wait = 0;
    for (const auto& s : m.samples) {
      if (!has_frame(s.stack, fn)) continue;
      total += s.weight_ns;
      if (s.stack.front().name == "<omp:lock-wait>") lock_wait += s.weight_ns;
    }
    ASSERT_GT(total, 0u) << fn;
    // The program measured its lock waits' share (tests/programs/omp_contention.c).
    const size_t at = last_output_.find(std::string(fn) + " ");
    ASSERT_NE(at, std::string::npos) << last_output_;
    const double truth = std::stod(last_output_.substr(at + std::strlen(fn) + 1));
    EXPECT_NEAR(double(lock_wait) / double(total), truth, 0.05) << fn;
  }
  expect_clean_user_view(p);
}

// A kernel the compiler inlined into the region's body keeps its name, under the region's
// frame, with its share of the time (issue 37: on gcc builds it vanished into the self time of
// "<main: omp parallel ...>": libdw's scope search does not descend into main._omp_fn.0, which
// gcc nests inside main's DIE). The program measures the kernel's and the serial part's CPU time.
TEST_P(Omp, FunctionsInlinedIntoARegionBodyKeepTheirNameAndShare) {
  format::Profile p = profile("omp_inlined");
  double kernel_s = 0, serial_s = 0;
  ASSERT_EQ(std::sscanf(last_output_.c_str(), "kernel_s %lf serial_s %lf", &kernel_s, &serial_s), 2)
      << last_output_;
  for (const omp::View view : {omp::View::kUser, omp::View::kExpert}) {
    viewer::Model m = viewer::build_model(p, view);
    uint64_t kernel = 0, serial = 0, kernel_samples = 0, serial_samples = 0;
    for (const auto& s : m.samples) {
      if (has_frame(s.stack, "kernel_a")) {
        kernel += s.weight_ns;
        kernel_samples += s.count;
        size_t at = 0;  // leaf first: kernel_a, maybe under an <off-cpu> leaf
        while (at < s.stack.size() && s.stack[at].name != "kernel_a") ++at;
        if (view == omp::View::kUser) {
          ASSERT_LT(at + 1, s.stack.size());
          EXPECT_TRUE(omp::is_region_frame_name(s.stack[at + 1].name))
              << "kernel_a is called from the region's frame, not " << s.stack[at + 1].name;
        }
      }
      if (has_frame(s.stack, "serial_part")) {
        serial += s.weight_ns;
        serial_samples += s.count;
      }
    }
    ASSERT_GT(kernel_samples, 0u) << "kernel_a is named";
    const double truth = kernel_s / (kernel_s + serial_s);
    const double share = double(kernel) / double(kernel + serial);
    EXPECT_NEAR(share, truth, sampling_tolerance(truth, kernel_samples + serial_samples))
        << "kernel_s " << kernel_s << " serial_s " << serial_s;
  }
}

// Each parallel construct has its fork-to-join wall time, equal to the program's own timers
// around it, and the main thread's run splits into parallel and serial wall time (issue 37,
// item 3). The construct is labelled with its pragma's line in the function holding it on both
// compilers (item 2: gcc's call of the runtime sat in a timer read inlined after the region,
// which read "clock_seconds @ spin.h:14" and merged the two constructs into one row).
TEST_P(Omp, ParallelRegionsHaveTheirWallTimeAndThePragmaLine) {
  constexpr int kRounds = 4;
  format::Profile p = profile("omp_phases", {"2", std::to_string(kRounds)});
  double setup_s = 0, between_s = 0, between_cpu_s = 0, imbalanced_s = 0, balanced_s = 0;
  double idle_cpu_s = 0, imbalanced_first_s = 0, balanced_first_s = 0;
  ASSERT_EQ(std::sscanf(last_output_.c_str(),
                        "setup_s %lf between_s %lf between_cpu_s %lf imbalanced_s %lf "
                        "balanced_s %lf between_idle_cpu_s %lf imbalanced_first_s %lf "
                        "balanced_first_s %lf",
                        &setup_s, &between_s, &between_cpu_s, &imbalanced_s, &balanced_s,
                        &idle_cpu_s, &imbalanced_first_s, &balanced_first_s),
            8)
      << last_output_;
  double imbalanced_inner_s = 0, balanced_inner_s = 0;
  const char* inner = std::strstr(last_output_.c_str(), "imbalanced_inner_s");
  ASSERT_TRUE(inner && std::sscanf(inner, "imbalanced_inner_s %lf balanced_inner_s %lf",
                                   &imbalanced_inner_s, &balanced_inner_s) == 2)
      << last_output_;
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const auto regions = viewer::parallel_region_totals(m);
  ASSERT_EQ(regions.size(), 2u);
  // omprof's fork-to-join window lies inside the program's timers, which also hold its calls
  // into the runtime around the callbacks (a few microseconds an instance on a quiet machine)
  // and omprof's own bookkeeping before it reads the fork's clock, which omprof leaves out of
  // the wall as it leaves out all its own time (its first fork of a construct unwinds through
  // the runtime's frames for the first time: 0.3-1 ms on the 2-vCPU VM, 3.5 ms seen in CI). And
  // it holds every instance's bodies, from the first member's start to the last one's end (the
  // program's inner time). The two bounds differ by the runtime's fork and join around the
  // bodies: microseconds quiet, milliseconds on a busy machine (beside one CPU burner 2-9 ms of
  // the imbalanced construct's 0.2 s, outside omprof's window as much as inside; the lower
  // bound was the program's timers less the first instance's excess until 2026-11-29, and
  // failed there 2 to 6 times in 10 with either collector). Clock reads: 0.1 ms each side.
  auto expect_wall = [](uint64_t ns, double total, double inner, const char* what) {
    const double wall = double(ns) * 1e-9;
    EXPECT_LE(wall, total + 0.01 * total + 4 * 100e-6) << what;
    EXPECT_GE(wall, inner - 4 * 100e-6)
        << what << ": the bodies took " << inner << " s, the program's timers " << total << " s";
  };
  // The pragmas' lines, from the source.
  std::ifstream source(std::string(TEST_SOURCE_DIR) + "/programs/omp_phases.c");
  std::vector<std::string> pragmas;
  std::string line;
  for (int n = 1; std::getline(source, line); ++n)
    if (line.find("#pragma omp parallel") != std::string::npos)
      pragmas.push_back("omp_phases.c:" + std::to_string(n));
  ASSERT_EQ(pragmas.size(), 2u);
  for (const auto& [key, r] : regions) {
    EXPECT_EQ(r.function, "main") << key;
    EXPECT_EQ(r.instances, 4u) << key;
    if (r.place == pragmas[0])
      expect_wall(r.wall, imbalanced_s, imbalanced_inner_s, "imbalanced region");
    else if (r.place == pragmas[1])
      expect_wall(r.wall, balanced_s, balanced_inner_s, "balanced region");
    else
      ADD_FAILURE() << "a construct labelled " << key;
  }
  for (const auto& [index, t] : p.threads)
    if (t.is_main())
      expect_wall(t.parallel_wall_ns(), imbalanced_s + balanced_s,
                  imbalanced_inner_s + balanced_inner_s, "main's split");
  for (const auto& s : m.samples) {
    auto region = std::find_if(s.stack.begin(), s.stack.end(),
                               [](const auto& f) { return omp::is_region_frame_name(f.name); });
    for (auto f = region; f != s.stack.end(); ++f)
      EXPECT_EQ(f->name.str().find("clock_seconds"), std::string::npos)
          << "the timer read after a region is not on its call path";
  }
}

// The workers' idle time lands on the serial code the main thread ran meanwhile (issue 37,
// item 5): between() runs while 1 or 2 workers idle (from the second round on: the workers
// exist from the first region), setup() before any worker exists. The blame is the main
// thread's sampled CPU time there times the workers alive: the program measures that CPU time.
TEST_P(Omp, IdleWorkersAreBlamedOnTheSerialCodeThatKeptThemIdle) {
  for (const char* threads : {"2", "3"}) {
    format::Profile p = profile("omp_phases", {threads, "4"});
    const char* at = std::strstr(last_output_.c_str(), "between_idle_cpu_s");
    double idle_cpu_s = 0;
    ASSERT_TRUE(at && std::sscanf(at, "between_idle_cpu_s %lf", &idle_cpu_s) == 1) << last_output_;
    viewer::Model m = viewer::build_model(p, omp::View::kUser);
    uint64_t setup = 0, between = 0, elsewhere = 0, between_samples = 0;
    for (const auto& s : m.samples) {
      if (s.idle_blame_ns == 0) continue;
      if (has_frame(s.stack, "setup")) {
        setup += s.idle_blame_ns;
      } else if (has_frame(s.stack, "between")) {
        between += s.idle_blame_ns;
        between_samples += s.count;
      } else {
        elsewhere += s.idle_blame_ns;
      }
    }
    const double workers = std::atoi(threads) - 1;
    EXPECT_EQ(setup, 0u) << "no worker exists before the first region";
    // Stratified samples of three contiguous CPU intervals: each end can be off by a period.
    const double period_s = double(p.header.period_ns()) * 1e-9;
    EXPECT_NEAR(double(between) * 1e-9, workers * idle_cpu_s, workers * 6 * period_s)
        << threads << " threads, " << between_samples << " samples";
    // The timer reads around the regions are serial code too, but brief.
    EXPECT_LT(double(elsewhere) * 1e-9, workers * 4 * period_s + 0.1 * double(between) * 1e-9);
    const viewer::IdleTotals totals = viewer::idle_totals(m);
    EXPECT_EQ(totals.blamed_ns, setup + between + elsewhere);
  }
}

// Beside as many CPU burners as the process may use, the profile says the machine was busy:
// each thread's time waiting for a CPU (the kernel's run delay) and involuntary switches, the
// CPUs, and the OpenMP waits that preemption can explain (issue 37, item 4: a busy machine read
// as a barrier problem, without a word).
TEST_P(Omp, ABusyMachineIsSaidWithEachThreadsWaitForACpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cpus = CPU_COUNT(&set);
  std::vector<std::unique_ptr<BusyProcess>> burners;
  for (int i = 0; i < std::min(cpus, 16); ++i) burners.push_back(std::make_unique<BusyProcess>());
  format::Profile p = profile("omp_phases", {"2", "2"});
  burners.clear();
  EXPECT_EQ(int(p.header.cpus_allowed()), cpus);
  EXPECT_GE(int(p.header.cpus_online()), cpus);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const viewer::BusyMachine busy = viewer::busy_machine(m);
  ASSERT_TRUE(busy.known);
  // Each thread shares a CPU with a burner: about half its lifetime runnable and waiting.
  EXPECT_GT(double(busy.run_delay_ns), 0.15 * double(busy.thread_life_ns))
      << busy.run_delay_ns << " of " << busy.thread_life_ns;
  EXPECT_TRUE(busy.busy);
  EXPECT_GT(busy.involuntary, 0u);
  for (const auto& [index, t] : p.threads) {
    if (t.is_omp_thread()) {
      EXPECT_GT(t.run_delay_ns(), 0u) << "thread " << index;
    }
  }
  EXPECT_GT(busy.preemption_bound_ns, 0u);
  EXPECT_LE(busy.preemption_bound_ns, busy.omp_wait_ns);
  EXPECT_NE(viewer::busy_warning(p, busy).find("the machine was busy"), std::string::npos);
}

// The run's conditions are in the profile (issue 37): the runtime's settings from the
// environment, its version where OMPT gives one, each thread's CPUs (bound by OMP_PROC_BIND to
// places of one hardware thread each: OMP_PLACES=threads; with places of cores, libomp binds a
// thread to a whole core, and on a VM whose CPUs it takes for one core's two hardware threads,
// as on an AMD EPYC guest here, to both CPUs).
TEST_P(Omp, TheRunsConditionsAreInTheProfile) {
  const std::string dir = fresh_dir("omp_conditions_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_phases_" + compiler()), "2", "1"});
  const RunResult r = run(
      argv, {{"OMP_PROC_BIND", "true"}, {"OMP_PLACES", "threads"}, {"OMP_WAIT_POLICY", "passive"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const format::Profile p = only_profile(dir);
  std::set<std::string> settings(p.header.omp_setting().begin(), p.header.omp_setting().end());
  EXPECT_TRUE(settings.count("OMP_PROC_BIND=true")) << p.header.DebugString();
  EXPECT_TRUE(settings.count("OMP_WAIT_POLICY=passive"));
  if (!on_libgomp()) {
    EXPECT_NE(p.header.omp_runtime_version().find("LLVM"), std::string::npos)
        << p.header.omp_runtime_version();
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  for (const auto& [index, t] : p.threads) {
    if (!t.is_omp_thread()) continue;
    ASSERT_FALSE(t.cpus().empty()) << "thread " << index;
    // "0-3,8": each CPU listed is one the process may use; bound threads have one each.
    std::istringstream list(t.cpus());
    int cpus = 0;
    for (std::string range; std::getline(list, range, ',');) {
      const size_t dash = range.find('-');
      const int lo = std::stoi(range.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
      for (int c = lo; c <= hi; ++c, ++cpus) EXPECT_TRUE(CPU_ISSET(c, &allowed)) << t.cpus();
    }
    if (CPU_COUNT(&allowed) >= 2) {
      EXPECT_EQ(cpus, 1) << "thread " << index << " bound by OMP_PROC_BIND: " << t.cpus();
    }
  }
}

TEST_P(Omp, NestedRegionsSpliceRecursively) {
  format::Profile p = profile("omp_nested");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  // The parallel-regions table names each construct's function as the user wrote it: the inner
  // construct of inline_nested is in the outer one's outlined body (it read
  // ".omp_outlined._debug__" with clang, "inline_nested._omp_fn.0" with gcc).
  std::set<std::string> functions;
  for (const auto& [key, r] : viewer::parallel_region_totals(m)) functions.insert(r.function);
  EXPECT_EQ(functions, (std::set<std::string>{"inner_level", "outer_level", "inline_nested"}));
  uint64_t inner = 0;
  expect_rooted_at_main(m);
  for (const auto& s : m.samples) {
    ASSERT_FALSE(s.stack.empty());
    if (has_frame(s.stack, "burn")) {
      inner += s.weight_ns;
      EXPECT_TRUE(has_frame(s.stack, "inner_level"));
      EXPECT_TRUE(has_frame(s.stack, "outer_level"));
      int regions = 0;
      for (const auto& f : s.stack) {
        regions += omp::is_region_frame_name(f.name);
        // Each construct is labelled with its own line, never ":0" or an outlined function
        // (issue 7: clang's nested outer region showed "omp_nested.c:0", ".omp_outlined._debug__").
        EXPECT_EQ(f.name.str().find(":0>"), std::string::npos) << f.name;
        EXPECT_EQ(f.name.str().find("omp_outlined"), std::string::npos) << f.name;
      }
      EXPECT_EQ(regions, 2);
      // The pragma's line (gcc) or its statement's (clang).
      // The pragma's line on both compilers (issue 37, item 2: gcc's read the function's
      // opening line, 12 and 7).
      EXPECT_TRUE(has_frame(s.stack, "<outer_level: omp parallel @ omp_nested.c:13>"));
      EXPECT_TRUE(has_frame(s.stack, "<inner_level: omp parallel @ omp_nested.c:8>"));
    }
  }
  // Of the CPU time (4 threads share 2 cores here: much of their time is off the CPU).
  uint64_t sampled = 0;
  for (const auto& s : m.samples) sampled += s.exact ? 0 : s.weight_ns;
  EXPECT_GT(double(inner), 0.5 * double(sampled));
  std::set<uint32_t> threads_in_inner;
  for (const auto& s : m.samples)
    if (has_frame(s.stack, "burn")) threads_in_inner.insert(s.thread);
  EXPECT_GE(threads_in_inner.size(), 3u) << "inner teams run on several threads";
  expect_clean_user_view(p);
}

TEST_P(Omp, TasksAppearUnderTheCreatingRegion) {
  format::Profile p = profile("omp_tasks");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t tasks = 0, placed = 0;
  std::set<uint32_t> threads;
  for (const auto& s : m.samples) {
    if (!has_frame(s.stack, "task_body")) continue;
    tasks += s.weight_ns;
    threads.insert(s.thread);
    bool region = false;
    for (const auto& f : s.stack) region |= omp::is_region_frame_name(f.name);
    if (region && has_frame(s.stack, "spawn_tasks") && s.stack.back().name == "main")
      placed += s.weight_ns;
  }
  ASSERT_GT(tasks, 0u);
  EXPECT_EQ(placed, tasks);
  EXPECT_EQ(threads.size(), 2u) << "both team members executed tasks";
  expect_clean_user_view(p);
}

// Tasks under their creation path (issue 15): one thread produces tasks in produce() (called in
// a single) while the other executes them; a quarter of them create a child task. Every sample
// of a task's code, on whichever thread, must sit under the construct that created it:
//   main > driver > <driver: omp parallel> > produce > <produce: omp task @ ...> > consume
// and the children one task frame deeper, under consume. The time there, per OpenMP thread, is
// the CPU time each thread measured in those functions.
TEST_P(Omp, TasksSitUnderTheirCreationPath) {
  format::Profile p = profile("omp_producer");
  int producer = -1;
  double consume_s[2] = {0, 0}, refine_s[2] = {0, 0};
  ASSERT_EQ(std::sscanf(last_output_.c_str(), "producer=%d consume_s=%lf,%lf refine_s=%lf,%lf",
                        &producer, &consume_s[0], &consume_s[1], &refine_s[0], &refine_s[1]),
            5)
      << last_output_;
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  // The frames from the task's body to main, leaf side first, after the leaf's own frames.
  auto path_after = [](const omp::FrameStack& s, const std::string& body) {
    std::vector<std::string> path;
    bool in = false;
    for (const auto& f : s) {
      if (f.name == body) in = true;
      if (in) path.push_back(f.name);
    }
    return path;
  };
  auto task_frame = [](const std::string& name, const std::string& function) {
    return omp::is_task_frame_name(name) &&
           name.rfind("<" + function + ": omp task @ omp_producer.c:", 0) == 0;
  };
  double consume_seen[2] = {0, 0}, refine_seen[2] = {0, 0};
  uint64_t consume_samples = 0, misplaced = 0;
  for (const auto& s : m.samples) {
    const bool in_refine = has_frame(s.stack, "refine");
    if (!in_refine && !has_frame(s.stack, "consume")) continue;
    // The program measures its CPU time: time a busy machine took from it (<off-cpu>, spread
    // over its samples) is not in it.
    if (s.state == omp::kStateOffCpu) continue;
    const std::vector<std::string> path = path_after(s.stack, in_refine ? "refine" : "consume");
    std::vector<std::string> below(path.begin() + 1, path.end());
    if (in_refine) {  // refine < <consume: omp task> < consume < ...
      if (below.size() < 2 || !task_frame(below[0], "consume") || below[1] != "consume") {
        ++misplaced;
        ADD_FAILURE() << "refine not under its creation path: " << ::testing::PrintToString(path);
        continue;
      }
      below.erase(below.begin(), below.begin() + 2);
    }
    const bool placed = below.size() == 5 && task_frame(below[0], "produce") &&
                        below[1] == "produce" && omp::is_region_frame_name(below[2]) &&
                        below[2].rfind("<driver: omp parallel @ omp_producer.c:", 0) == 0 &&
                        below[3] == "driver" && below[4] == "main";
    if (!placed) {
      ++misplaced;
      ADD_FAILURE() << "task code not under its creation path: " << ::testing::PrintToString(path);
      continue;
    }
    const uint32_t t = s.omp_thread_num & 1;
    (in_refine ? refine_seen : consume_seen)[t] += 1e-9 * double(s.weight_ns);
    consume_samples += s.count;
  }
  EXPECT_EQ(misplaced, 0u);
  ASSERT_GT(consume_samples, 0u);
  // Against each thread's own clock: 0.3 s of consume in all, spread over the threads by the
  // runtime (the producer joins in at the single's barrier).
  const int consumer = 1 - producer;
  ASSERT_GT(consume_s[consumer], 0.05) << last_output_;
  // Sampling error: each of a function's separate runs is off by less than a period (sd <= P/2
  // each): 120 consume runs and 30 refine runs in all, four standard deviations.
  const double period_s = double(p.header.period_ns()) * 1e-9;
  for (int t = 0; t < 2; ++t) {
    SCOPED_TRACE("OpenMP thread " + std::to_string(t));
    EXPECT_NEAR(consume_seen[t], consume_s[t],
                std::max(0.15 * consume_s[t] + 0.02, 4 * period_s * std::sqrt(120.0) / 2));
    EXPECT_NEAR(refine_seen[t], refine_s[t],
                std::max(0.15 * refine_s[t] + 0.02, 4 * period_s * std::sqrt(30.0) / 2));
  }
  expect_clean_user_view(p);
}

// The child made by a task construct, by a taskloop inside the runtime, or by a task before a
// task run at once that makes a taskwait of its own with nothing to wait for: the master's
// taskwait waits in each (libgomp's wrappers time a taskwait only once its task may have a child).
class OmpTaskwait : public Omp {
 protected:
  void expect_waiting_while_child_runs_elsewhere(const char* how);
};

TEST_P(OmpTaskwait, TaskwaitIsWaitingWhileTheChildRunsElsewhere) {
  expect_waiting_while_child_runs_elsewhere("task");
}
TEST_P(OmpTaskwait, TaskloopChildIsWaitedFor) {
  expect_waiting_while_child_runs_elsewhere("taskloop");
}
TEST_P(OmpTaskwait, ChildBeforeAnInlineTasksTaskwaitIsWaitedFor) {
  expect_waiting_while_child_runs_elsewhere("inline");
}

void OmpTaskwait::expect_waiting_while_child_runs_elsewhere(const char* how) {
  dir_tag_ = std::string("_") + how;  // ctest runs the three side by side
  format::Profile p = profile("omp_taskwait", {how});
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t taskwait = 0, child_work = 0, master_total = 0;
  uint32_t main_thread = 0;
  for (const auto& [i, t] : p.threads)
    if (t.is_main()) main_thread = i;
  for (const auto& s : m.samples) {
    if (s.thread == main_thread) master_total += s.weight_ns;
    if (s.stack.front().name == "<omp:taskwait>") {
      EXPECT_EQ(s.state, 0x20u);
      EXPECT_TRUE(has_frame(s.stack, "wait_for_child"));
      if (s.thread == main_thread) taskwait += s.weight_ns;
    }
    if (has_frame(s.stack, "child_task")) {
      EXPECT_FALSE(omp::is_wait(s.state));
      child_work += s.weight_ns;
    }
  }
  // Designed: 5 x (150 - 20) ms of waiting on the master, as long as the master measured it
  // (longer on a busy machine); the child's 750 ms of CPU time are work, as long as its wall
  // time (longer when preempted). Taskwait is sampled (format 1.7): 5 visits, each off by less
  // than a period (sd <= P/2), four standard deviations.
  double waited = 0, master_ran = 0, child_wall = 0;
  ASSERT_EQ(
      std::sscanf(last_output_.c_str(), "taskwait_wall=%lf master_ran_child=%lf child_wall=%lf",
                  &waited, &master_ran, &child_wall),
      3)
      << last_output_;
  const double period_s = double(p.header.period_ns()) * 1e-9;
  EXPECT_NEAR(double(taskwait) * 1e-9, waited, 0.03 * waited + 4 * period_s * std::sqrt(5.0) / 2)
      << "master total " << master_total;
  EXPECT_NEAR(double(child_work) * 1e-9, child_wall, 0.1);
  expect_clean_user_view(p);
}

TEST_P(Omp, SameConstructFromTwoCallPathsAtTheSameDepth) {
  format::Profile p = profile("omp_callers");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  uint64_t a = 0, b = 0, region = 0, samples = 0;
  for (const auto& s : m.samples) {
    if (!has_frame(s.stack, "parallel_work")) continue;
    region += s.weight_ns;
    samples += s.count;
    const bool in_a = has_frame(s.stack, "caller_a"), in_b = has_frame(s.stack, "caller_b");
    EXPECT_NE(in_a, in_b) << "each sample is under exactly one caller";
    (in_a ? a : b) += s.weight_ns;
  }
  ASSERT_GT(region, 0u);
  // Within sampling error (a fixed 0.08 failed a run: 0.58).
  EXPECT_NEAR(double(a) / double(region), 2.0 / 3.0, sampling_tolerance(2.0 / 3.0, samples))
      << "a " << a << " b " << b << ", " << samples << " samples";
  // Two fork records (one per call path), whatever the memo did.
  std::set<std::string> paths;
  for (const auto& [id, f] : m.forks) {
    std::string path;
    for (const auto& fr : f.stack) path += fr.name + ";";
    if (path.find("caller_a") != std::string::npos) paths.insert("a");
    if (path.find("caller_b") != std::string::npos) paths.insert("b");
  }
  EXPECT_EQ(paths.size(), 2u);
  expect_clean_user_view(p);
}

TEST_P(Omp, ExpertViewKeepsOutlinedFunctions) {
  format::Profile p = profile("omp_imbalance", {"2", "40"});
  viewer::Model expert = viewer::build_model(p, omp::View::kExpert);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  auto outlined = [](const viewer::Model& m) {
    uint64_t n = 0;
    for (const auto& s : m.samples)
      for (const auto& f : s.stack) n += omp::is_outlined_name(f.name);
    return n;
  };
  EXPECT_GT(outlined(expert), 0u);
  EXPECT_EQ(outlined(user), 0u);
}

// The lines of a parallel region's body stay apart in the user view: the region's frame takes
// the body's source line (where the outlined function is), so `report --lines` shows the two
// hot lines of omp_body_lines with the time the program measured on each (thread CPU time, about
// 2:1), within sampling tolerance.
TEST_P(Omp, LinesOfARegionBodyAreToldApart) {
  format::Profile p = profile("omp_body_lines");
  int line_a = 0, line_b = 0;
  double seconds_a = 0, seconds_b = 0;
  ASSERT_EQ(std::sscanf(last_output_.c_str(), "line_a=%d seconds_a=%lf line_b=%d seconds_b=%lf",
                        &line_a, &seconds_a, &line_b, &seconds_b),
            4)
      << last_output_;
  const RunResult rep = run({OMPROF_BIN, "report", p.path, "--lines", "--format", "csv"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::istringstream rows(rep.out);
  std::string row;
  std::getline(rows,
               row);  // header: self_s,self%,total_s,total%,samples,work_s,wait_s,line,function
  double self_a = 0, self_b = 0;
  uint64_t samples = 0;
  const std::string file = "omp_body_lines.c:";
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::istringstream cs(row);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    if (cells.size() < 9 || cells[7].rfind(file, 0) != 0) continue;
    const int line = std::stoi(cells[7].substr(file.size()));
    if (line != line_a && line != line_b) continue;
    // A body line is the region frame's; time off the CPU there is an <off-cpu> row of its own.
    if (cells[8] == "<off-cpu>") continue;
    EXPECT_EQ(cells[8].rfind("<main: omp parallel @ omp_body_lines.c:", 0), 0u) << row;
    (line == line_a ? self_a : self_b) += std::stod(cells[0]);
    samples += std::stoull(cells[4]);
  }
  ASSERT_GT(self_a + self_b, 0) << rep.out;
  const double share = self_a / (self_a + self_b);
  const double truth = seconds_a / (seconds_a + seconds_b);
  EXPECT_NEAR(share, truth, sampling_tolerance(truth, samples)) << samples << " samples";
  // Nearly all of the body's time is on those two lines.
  EXPECT_NEAR(self_a + self_b, seconds_a + seconds_b, 0.15 * (seconds_a + seconds_b) + 0.02);
}

// Two constructs in one function, in a build without debug information (no line table): two
// region frames named by code address, never merged (issue 16), with the designed 2:1 work.
TEST_P(Omp, ConstructsWithoutLineTableStayApart) {
  format::Profile p = profile("omp_two_loops_nodebug");
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  std::map<std::string, uint64_t> by_region;
  uint64_t samples = 0;
  for (const auto& s : user.samples)
    for (const auto& f : s.stack)
      if (omp::is_region_frame_name(f.name)) {
        by_region[f.name] += s.weight_ns;
        samples += s.count;
        break;
      }
  ASSERT_EQ(by_region.size(), 2u);
  uint64_t total = 0, largest = 0;
  for (const auto& [name, ns] : by_region) {
    EXPECT_EQ(name.rfind("<main: omp parallel @ main+0x", 0), 0u) << name;
    total += ns;
    largest = std::max(largest, ns);
  }
  const double share = double(largest) / double(total);
  EXPECT_NEAR(share, 2.0 / 3.0, sampling_tolerance(2.0 / 3.0, samples)) << samples << " samples";
  // The parallel-regions view: two rows, each placed at its own offset in main.
  const RunResult rep =
      run({OMPROF_BIN, "report", p.path, "--parallel-regions", "--format", "csv"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  std::istringstream lines(rep.out);
  std::string line;
  std::set<std::string> places;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("main+0x", 0), 0u) << line;
    places.insert(line.substr(0, line.find(',')));
  }
  EXPECT_EQ(places.size(), 2u) << rep.out;
}

// Each barrier is named by where it is (docs/semantics.md): the program measures its own waits
// at the end of an `omp for`, at an explicit barrier and at the region's end; omprof's exact
// waits must put the same time under the right names. gcc's builds reach explicit barriers and
// loop ends through the same GOMP entry point, which the runtime does not classify: both are
// `<omp:barrier>` there.
TEST_P(Omp, BarriersAreNamedByWhereTheyAre) {
  format::Profile p = profile("omp_barriers");
  double worksharing = 0, explicit_barrier = 0, region_end = 0;
  ASSERT_EQ(std::sscanf(last_output_.c_str(), "worksharing=%lf explicit=%lf region_end=%lf",
                        &worksharing, &explicit_barrier, &region_end),
            3)
      << last_output_;
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  auto seconds = [&](const std::string& frame) { return 1e-9 * double(self_ns(user, frame)); };
  // Exact waits against the program's clock reads around each barrier: the reads themselves,
  // and the callbacks' place inside the runtime, differ by microseconds per wait (40 waits).
  // The designed waits differ by 150 units (about 0.05 s), more than twice the tolerance.
  double tolerance = 0.005 + 0.05 * (worksharing + explicit_barrier + region_end);
  // On libgomp a barrier's time on the CPU (its spinning, up to its spin count) is sampled: 40
  // waits (worksharing and explicit) or 20 (region end), each off by less than a period
  // (sd <= P/2), four standard deviations.
  const double period_s = double(p.header.period_ns()) * 1e-9;
  if (on_libgomp()) tolerance += 4 * period_s * std::sqrt(40.0) / 2;
  // A waiting thread preempted after the last arrival leaves late: the program counts that as
  // the barrier's wait, omprof as its overhead (beyond the team's imbalance). The program reports
  // the waiting threads' time off the CPU; it may be missing from omprof's side (on a quiet
  // machine it is about zero). At the region's end the master's lateness delays the region's end
  // for both threads' measurements.
  // The program's line `LABEL: worksharing=A explicit=B X=C`.
  auto three = [&](const std::string& label, const std::string& third) {
    std::array<double, 3> v{};
    const size_t at = last_output_.find(label + ":");
    EXPECT_NE(at, std::string::npos) << last_output_;
    const std::string format = label + ": worksharing=%lf explicit=%lf " + third + "=%lf";
    if (at == std::string::npos ||
        std::sscanf(last_output_.c_str() + at, format.c_str(), &v[0], &v[1], &v[2]) != 3)
      ADD_FAILURE() << "no " << label << " line: " << last_output_;
    return v;
  };
  const auto [worksharing_off, explicit_off, master_end_off] =
      three("off_cpu", "master_region_end");
  // Nor does omprof count as waiting the time by which the thread waited for left its previous
  // synchronization point late (the fork woke it late, it was preempted leaving a barrier):
  // the program reports that too.
  const auto [worksharing_late, explicit_late, region_end_late] = three("late_start", "region_end");
  auto expect_wait = [&](const std::string& frame, double designed, double allowed) {
    const double measured = seconds(frame);
    EXPECT_LE(measured, designed + tolerance) << frame;
    EXPECT_GE(measured, designed - allowed - tolerance)
        << frame << ", off the CPU or late " << allowed;
  };
  expect_wait("<omp:region-end-barrier>", region_end, 2 * master_end_off + region_end_late);
  if (GetParam() == "clang") {
    expect_wait("<omp:worksharing-end-barrier>", worksharing, worksharing_off + worksharing_late);
    expect_wait("<omp:explicit-barrier>", explicit_barrier, explicit_off + explicit_late);
  } else {
    expect_wait("<omp:barrier>", worksharing + explicit_barrier,
                worksharing_off + explicit_off + worksharing_late + explicit_late);
  }
}

// Tasks far too fine for the runtime (issue 15): every call of fib creates two tasks. The
// runtime's task bookkeeping must show as overhead (Wait, <omp:task-overhead> or, where an entry
// point's call site could not be decoded, <omp:overhead>, under fib), not as work (before: 100%
// work on one thread) or waiting (before: 53% <omp:taskwait> on two threads, where almost every
// taskwait has no child left to wait for: its undeferred children completed before it).
// Millions of taskwaits a second: where the thread's CPU clock is read with a system call
// (perf_event_open refused: clocks/switch_watch.h), they trip libgomp's cost guard
// (collector/openmp/cost_guard.h), the waits it leaves unmeasured are counted, and the report's
// Lost line says so (issue 39: they were counted and never written); where the clock is read
// without one, every wait is measured.
void expect_unmeasured_waits_told(const format::Profile& p, const std::string& dir) {
  uint64_t unmeasured = 0;
  for (const auto& [i, t] : p.threads) unmeasured += t.unmeasured_waits();
  if (task_clock_usable()) {
    EXPECT_EQ(unmeasured, 0u) << "the CPU clock is cheap to read: no wait is left unmeasured";
    return;
  }
  EXPECT_GT(unmeasured, 10000u) << "fib(34) begins millions of taskwaits";
  const RunResult rep = run({OMPROF_BIN, "report", dir, "--flat", "--top", "1"});
  EXPECT_NE(rep.out.find(std::to_string(unmeasured) + " waits not measured off the CPU"),
            std::string::npos)
      << rep.out;
}

// Untied tasks (tests/programs/omp_untied.c, BOTS sparselu_single's shape): both threads run
// the untied producer's parts and its children from the region's end barrier. No thread's time
// (work, exact waits, overhead) may exceed its life, and the barrier holds little of it. (libomp
// 14 misnames the task a thread switches from when it resumes an untied task from its barrier:
// on BOTS sparselu_single that made the barrier's wait run on under the tasks, twice the
// thread's life; this program does not make libomp do that, and checks the rest.)
TEST_P(Omp, UntiedTasksRunFromABarrierAreWorkNotWait) {
  const std::string dir = fresh_dir("omp_untied_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_untied_" + compiler()), "10", "0.1", "600"});
  const RunResult r = run(argv, {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  double region_s = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "region_s %lf", &region_s), 1) << r.out;
  format::Profile p = only_profile(dir);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  std::map<uint32_t, double> time_s, wait_s;
  std::map<uint32_t, uint64_t> samples;
  uint64_t child_samples = 0, child_placed = 0;
  for (const auto& s : user.samples) {
    time_s[s.thread] += double(s.weight_ns) * 1e-9;
    samples[s.thread] += s.count;
    if (omp::is_wait(s.state)) wait_s[s.thread] += double(s.weight_ns) * 1e-9;
    // A child's code sits under the task construct in produce() that created it (libomp 14
    // starts an untied task with a switch back to its creator that it misnames: the children
    // and the producer were the region's, outside every task, until 2026-11-28).
    if (s.exact || s.state == omp::kStateOffCpu || !has_frame(s.stack, "child")) continue;
    child_samples += s.count;
    for (const auto& f : s.stack)
      if (omp::is_task_frame_name(f.name) &&
          f.name.str().rfind("<produce: omp task @ omp_untied.c:", 0) == 0) {
        child_placed += s.count;
        break;
      }
  }
  std::printf("%s: %llu of %llu samples of child() under their task construct\n",
              GetParam().c_str(), static_cast<unsigned long long>(child_placed),
              static_cast<unsigned long long>(child_samples));
  ASSERT_GT(child_samples, 0u);
  EXPECT_EQ(child_placed, child_samples);
  ASSERT_EQ(time_s.size(), 2u);
  for (const auto& [thread, t] : time_s) {
    const auto& th = p.threads.at(thread);
    // A thread still running when the profile was written ends with the run.
    const uint64_t end_ns = th.end_ns() ? th.end_ns() : p.header.duration_ns();
    const double life_s = double(end_ns > th.start_ns() ? end_ns - th.start_ns() : 0) * 1e-9;
    // One sampling period per 10 samples' worth of error, and 3 standard errors of the count.
    const double err = 3 * t / std::sqrt(std::max(double(samples[thread]), 1.0)) + 0.01;
    std::printf("%s thread %u: time %.3f s (wait %.3f) of a %.3f s life, region %.3f s\n",
                GetParam().c_str(), thread, t, wait_s[thread], life_s, region_s);
    EXPECT_LT(t, life_s + err) << "thread " << thread;
    // 600 children a step keep both threads busy: each waits for the other's last child at
    // most, a unit per step, and for the producer's creation of the first (10% of the region).
    EXPECT_LT(wait_s[thread], 10 * 0.0001 + 0.1 * region_s + err) << "thread " << thread;
  }
}

TEST_P(Omp, FineGrainedTasksAreRuntimeOverhead) {
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(std::string("OMP_NUM_THREADS=") + threads);
    const std::string dir = fresh_dir("omp_fib_" + GetParam() + "_" + threads);
    std::vector<std::string> argv = omprof_run(dir);
    if (task_clock_usable()) argv.insert(argv.end(), {"--rate", "1000"});
    // fib(34): about 25 ms of serial work, enough samples that three standard errors of the
    // sampled work stay below the serial time (fib(32) could not tell 3x from 1x).
    argv.insert(argv.end(), {"--", program("omp_fib_" + compiler()), "34"});
    const RunResult r = run(argv, {{"OMP_NUM_THREADS", threads}});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.out.find(" ok "), std::string::npos) << r.out;
    format::Profile p = only_profile(dir);
    viewer::Model user = viewer::build_model(p, omp::View::kUser);
    uint64_t work = 0, overhead = 0, waiting = 0, samples = 0, under_fib = 0;
    uint64_t slept = 0, off_cpu = 0;
    for (const auto& s : user.samples) {
      bool in_tasks = false;  // the task phase: inside the parallel region
      for (const auto& f : s.stack) in_tasks |= omp::is_region_frame_name(f.name);
      if (!in_tasks) continue;
      // What the threads did on the CPU: time a busy machine took from them (<off-cpu>) is
      // neither the runtime's nor the program's, and on libgomp the measured waits are the
      // threads' sleeps in them (off the CPU: a thread whose children all run elsewhere).
      if (s.state == omp::kStateOffCpu) {
        off_cpu += s.weight_ns;
        continue;
      }
      if (on_libgomp() && s.exact) {
        if (omp::is_wait(s.state) && !omp::is_overhead(s.state)) slept += s.weight_ns;
        continue;
      }
      samples += s.count;
      if (omp::is_overhead(s.state)) {
        overhead += s.weight_ns;
        // Under the call path that entered the runtime (fib, in its task bodies).
        for (const auto& f : s.stack)
          if (f.name.str().rfind("fib", 0) == 0 && f.name.str().rfind("fib_serial", 0) != 0) {
            under_fib += s.weight_ns;
            break;
          }
      } else if (omp::is_wait(s.state)) {
        waiting += s.weight_ns;
      } else {
        work += s.weight_ns;
      }
    }
    const double total = double(work + overhead + waiting);
    ASSERT_GT(total, 0);
    const double overhead_share = double(overhead) / total;
    const double waiting_share = double(waiting) / total;
    std::printf(
        "fib on %s thread(s): overhead %.3f, waiting %.3f, work %.3f of %.3f s (%llu samples)\n",
        threads, overhead_share, waiting_share, double(work) / total, total * 1e-9,
        static_cast<unsigned long long>(samples));
    // The program's own work in its tasks is the same calls as without OpenMP (the code at the
    // task constructs, which fills in the runtime's task descriptors, is task overhead), but run
    // between the runtime's: their leaves (fib's n < 2, inlined into the compiler's task
    // functions) read 1.5-3.0 times the serial version's time on this VM, whose own
    // measurement moved from 0.034 to 0.055 s between runs. So at most 4 times the serial
    // version's time, which the program measures, plus three standard errors of the sampled
    // work (about one period per square root of its samples): 0.2 s of the 3-5 s of task
    // overhead, so runtime time counted as work beyond about 4% of it still fails.
    const size_t at = r.out.find("serial_s=");
    ASSERT_NE(at, std::string::npos) << r.out;
    const double serial_s = std::atof(r.out.c_str() + at + 9);
    const double period_s = double(p.header.period_ns()) * 1e-9;
    const double work_s = double(work) * 1e-9;
    const double work_error_s = period_s * std::sqrt(std::max(1.0, work_s / period_s));
    std::printf("fib on %s thread(s): work %.4f s, serial version %.4f s (bound %.4f s)\n", threads,
                work_s, serial_s, 4 * serial_s + 3 * work_error_s);
    EXPECT_LT(work_s, 4 * serial_s + 3 * work_error_s);
    EXPECT_GT(overhead_share, 0.70 - sampling_tolerance(0.70, samples));
    EXPECT_LT(waiting_share, 0.15 + sampling_tolerance(0.15, samples));
    uint64_t run_delay = 0, life = 0;
    for (const auto& [i, t] : p.threads) {
      run_delay += t.run_delay_ns();
      life += (t.end_ns() ? t.end_ns() : p.header.duration_ns()) - t.start_ns();
    }
    std::printf(
        "fib on %s thread(s): slept in waits %.3f s, <off-cpu> %.3f s, run queue %.3f s, "
        "thread life %.3f s\n",
        threads, double(slept) * 1e-9, double(off_cpu) * 1e-9, double(run_delay) * 1e-9,
        double(life) * 1e-9);
    // The threads' time off the CPU out of the run queue is their sleeps in the runtime's waits:
    // waiting, not <off-cpu> work (BOTS fib on gcc read 57% of a thread's time as <off-cpu> when
    // the taskwaits around tasks that waited were not measured). <off-cpu> is what is left of
    // the threads' lives after their samples and waits: three standard errors of the sampled
    // time. Where perf_event_open is refused, those taskwaits are not measured (as before).
    if (on_libgomp() && task_clock_usable()) {
      const double sampled_error_ns =
          double(p.header.period_ns()) * std::sqrt(double(std::max<uint64_t>(samples, 1)));
      EXPECT_LT(double(off_cpu), double(run_delay) + 3 * sampled_error_ns);
    }
    EXPECT_GT(double(under_fib), 0.9 * double(overhead - self_ns(user, "<omp:fork-overhead>")));
    if (on_libgomp()) expect_unmeasured_waits_told(p, dir);
  }
}

// Recursive untied tasks (BOTS fib's shape): libomp 14 starts each with a switch back to its
// creator that it misnames while the task runs on, and omprof took that for the creator running:
// every sample of fib() lay under the region, outside every task (BOTS fib on clang: 80% of the
// profile). omp_fib "untied" calls every fib() in a task, so each sample in fib(), its taskwaits
// included, sits under a task construct. In an untied task's taskwait the thread's running task
// is often a part of another task that ended (clang splits untied tasks' code at their task
// constructs): a sample there is the waiting task's, whose record the taskwait's bracket keeps
// (about half of them lay under the region before).
TEST_P(Omp, RecursiveUntiedTasksSitUnderTheirCreationPath) {
  const std::string dir = fresh_dir("omp_fib_untied_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_fib_" + compiler()), "27", "0", "untied"});
  const RunResult r = run(argv, {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(r.out.find(" ok "), std::string::npos) << r.out;
  format::Profile p = only_profile(dir);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  uint64_t in_fib = 0, placed = 0;
  for (const auto& s : user.samples) {
    if (s.exact || s.state == omp::kStateOffCpu) continue;
    bool fib = false, task_frame = false;
    for (const auto& f : s.stack) {
      fib |= f.name.str().rfind("fib_untied", 0) == 0;
      task_frame |= omp::is_task_frame_name(f.name);
    }
    if (!fib) continue;
    in_fib += s.count;
    if (task_frame) {
      placed += s.count;
    } else if (in_fib - placed == s.count) {
      std::string path;
      for (const auto& f : s.stack) path += f.name.str() + " < ";
      std::printf("outside every task (state %#x): %s\n", s.state, path.c_str());
    }
  }
  std::printf("%s: %llu of %llu samples in fib_untied() under a task construct\n",
              GetParam().c_str(), static_cast<unsigned long long>(placed),
              static_cast<unsigned long long>(in_fib));
  ASSERT_GT(in_fib, 0u);
  // One in about 35 runs of the gcc build on libomp had a sample outside (a switch's window,
  // printed above when it happens); before, 30-80% of them were.
  EXPECT_LE(in_fib - placed, in_fib / 20 + 1);
}

// The program's own code inside task creation: libgomp calls the compiler's copy function for a
// firstprivate C++ object inside GOMP_task, before it takes its task lock. A copy constructor that
// sleeps (5 ms, 40 times, measured by the program) sleeps in the program's code, not in the
// runtime: none of it is task overhead (the timing of GOMP_task, 52073b4, counted it all).
TEST_P(Omp, ASleepInAFirstprivateCopyIsNotTaskOverhead) {
  if (compiler() != "gcc" || !on_libgomp() || !task_clock_usable())
    GTEST_SKIP() << "libgomp's task creation, timed where the thread's CPU clock reads cheaply";
  const std::string dir = fresh_dir("omp_copy_sleep_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_copy_sleep_gcc")});
  const RunResult r = run(argv, {});
  ASSERT_EQ(r.status, 0) << r.err;
  double slept_s = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "copy_sleep_s %lf", &slept_s), 1) << r.out;
  format::Profile p = only_profile(dir);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  uint64_t task_overhead_measured = 0;
  for (const auto& s : user.samples)
    if (s.exact && s.state == format::kOverheadTask) task_overhead_measured += s.weight_ns;
  std::printf("copies slept %.3f s; measured task overhead %.3f s\n", slept_s,
              double(task_overhead_measured) * 1e-9);
  ASSERT_GT(slept_s, 0.15) << r.out;
  EXPECT_LT(double(task_overhead_measured) * 1e-9, 0.1 * slept_s);
}

// A taskwait inside a task is in that task: its measured time sits under the task's creation
// path, as its samples do. omp_fib with "task" makes its first fib() call in a task too, so
// every taskwait is in a task. On libgomp the measured taskwaits had no task: BOTS fib's 2.6 s of
// them sat in a fib.part.2 node of their own under the region, beside the task tree (39% of the
// profile).
TEST_P(Omp, TaskwaitsMeasuredInsideTasksSitUnderTheTasksCreationPath) {
  const std::string dir = fresh_dir("omp_fib_placed_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_fib_" + compiler()), "28", "0", "task"});
  // Passive: the taskwaits sleep, so libgomp's measure them too (their time off the CPU).
  const RunResult r = run(argv, {{"OMP_NUM_THREADS", "2"}, {"OMP_WAIT_POLICY", "passive"}});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(r.out.find(" ok "), std::string::npos) << r.out;
  format::Profile p = only_profile(dir);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  uint64_t in_tasks = 0, misplaced = 0;
  for (const auto& s : user.samples) {
    if (!s.exact || s.state != format::kWaitTaskwait) continue;
    bool task_frame = false;
    for (const auto& f : s.stack) task_frame |= omp::is_task_frame_name(f.name);
    (task_frame ? in_tasks : misplaced) += s.weight_ns;
    if (!task_frame && misplaced == s.weight_ns && on_libgomp()) {
      std::string path;
      for (const auto& f : s.stack) path += f.name.str() + " < ";
      ADD_FAILURE() << "a measured taskwait outside its task: " << path;
    }
  }
  std::printf("measured taskwaits: %.3f s under a task, %.3f s not\n", double(in_tasks) * 1e-9,
              double(misplaced) * 1e-9);
  // On libomp a piece of a taskwait recorded while the runtime switches tasks (the running
  // task's exit frame not set: handler::running_task_origin) sits under the region: under a
  // millisecond in a run here, one run in three.
  if (on_libgomp())
    EXPECT_EQ(misplaced, 0u);
  else
    EXPECT_LE(misplaced, in_tasks / 10 + 1000000);
}

// More threads than CPUs under a passive policy: libgomp's task-queue mutex futex-waits when
// contended, so task creation (GOMP_task) sleeps (BOTS fib on gcc, 4 threads on 2 CPUs: about
// 0.1 s of 6.5 thread-seconds, which was <off-cpu> work). What a thread sleeps there is task
// overhead, measured; no thread is measured asleep longer than it was (its life minus its CPU
// and run-queue time), and its time off the CPU left as <off-cpu> work stays within its time in
// the run queue (preempted). The collector before the measurement passes too on this program
// (its sleeps there are small, 1-10 ms a thread): the bounds check that the measurement counts
// no preemption and no task's time.
TEST_P(Omp, TaskCreationAsleepOnTheRuntimesLockIsTaskOverhead) {
  if (!on_libgomp() || !task_clock_usable())
    GTEST_SKIP() << "measured on GNU libgomp, where the thread's CPU clock reads cheaply";
  const std::string dir = fresh_dir("omp_fib_passive_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--rate", "1000", "--", program("omp_fib_" + compiler()), "27", "0"});
  const RunResult r = run(argv, {{"OMP_NUM_THREADS", "4"}, {"OMP_WAIT_POLICY", "passive"}});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(r.out.find(" ok "), std::string::npos) << r.out;
  format::Profile p = only_profile(dir);
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  std::map<uint32_t, uint64_t> off_cpu, creation_slept, samples;
  for (const auto& s : user.samples) {
    if (s.state == omp::kStateOffCpu) off_cpu[s.thread] += s.weight_ns;
    if (s.exact && s.state == format::kOverheadTask) creation_slept[s.thread] += s.weight_ns;
    if (!s.exact) samples[s.thread] += s.count;
  }
  for (const auto& [i, t] : p.threads) {
    const uint64_t life = (t.end_ns() ? t.end_ns() : p.header.duration_ns()) - t.start_ns();
    const uint64_t off = life > t.cpu_time_ns() ? life - t.cpu_time_ns() : 0;
    const uint64_t asleep = off > t.run_delay_ns() ? off - t.run_delay_ns() : 0;
    const double error_ns =
        double(p.header.period_ns()) * std::sqrt(double(std::max<uint64_t>(samples[i], 1)));
    std::printf(
        "thread %u: asleep in task creation %.3f s of %.3f s asleep; <off-cpu> %.3f s, "
        "run queue %.3f s\n",
        i, double(creation_slept[i]) * 1e-9, double(asleep) * 1e-9, double(off_cpu[i]) * 1e-9,
        double(t.run_delay_ns()) * 1e-9);
    EXPECT_LE(creation_slept[i], asleep + p.header.period_ns()) << "thread " << i;
    EXPECT_LT(double(off_cpu[i]), double(t.run_delay_ns()) + 3 * error_ns) << "thread " << i;
  }
}

// Work, overhead and waiting of a whole profile (user model), in ns; `off_cpu` is the part of
// work that is time off the CPU outside waits (preemption on a busy machine, docs/semantics.md).
struct Classes {
  uint64_t work = 0, overhead = 0, waiting = 0, off_cpu = 0;
  double total() const { return double(work + overhead + waiting); }
};
Classes classes_of(const viewer::Model& user) {
  Classes c;
  for (const auto& s : user.samples) {
    if (omp::is_overhead(s.state))
      c.overhead += s.weight_ns;
    else if (omp::is_wait(s.state))
      c.waiting += s.weight_ns;
    else
      c.work += s.weight_ns;
    if (s.state == omp::kStateOffCpu) c.off_cpu += s.weight_ns;
  }
  return c;
}

// Regions too small for the runtime (issue 15): in 200,000 empty regions of a balanced team the
// threads only fork and join; nobody waits for anybody's work. Before, the join (the master at
// the region-end barrier while the worker was still being woken) was 51% waiting and fork
// overhead 26%. Regions with a balanced 10 ms loop each have almost no overhead. The program's
// work is its time on the CPU: beside other busy processes the team is preempted, and that time
// is <off-cpu> work wherever it falls (0.47 of the time beside two CPU burners on 2 cores, where
// the runtime's overhead read 0.38).
TEST_P(Omp, EmptyRegionsAreForkJoinOverhead) {
  const std::string dir = fresh_dir("omp_region_sizes_empty_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_region_sizes_" + compiler()), "200000", "0"});
  const RunResult r = run(argv);
  ASSERT_EQ(r.status, 0) << r.err;
  const Classes c = classes_of(viewer::build_model(only_profile(dir), omp::View::kUser));
  std::printf(
      "200000 empty regions: overhead %.3f, waiting %.3f, work %.3f (%.3f of it off the CPU) of "
      "%.3f s\n",
      double(c.overhead) / c.total(), double(c.waiting) / c.total(), double(c.work) / c.total(),
      double(c.off_cpu) / c.total(), c.total() * 1e-9);
  EXPECT_GT(c.overhead, c.waiting);
  EXPECT_GT(c.overhead, c.work - c.off_cpu);
}

// The same under a passive wait policy: the threads sleep in the runtime at every fork and join,
// thousands of times a second. That time off the CPU is the runtime's (measured exactly), not
// work: on libgomp a fast start used to stop the measuring for good (the cost guard), and then
// 56% of LULESH's thread time was <off-cpu> work.
TEST_P(Omp, EmptyRegionsUnderAPassivePolicyAreNotWork) {
  const std::string dir = fresh_dir("omp_region_sizes_passive_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_region_sizes_" + compiler()), "20000", "0"});
  const RunResult r = run(argv, {{"OMP_WAIT_POLICY", "passive"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const Classes c = classes_of(viewer::build_model(only_profile(dir), omp::View::kUser));
  std::printf(
      "20000 empty regions, passive: overhead %.3f, waiting %.3f, work %.3f (%.3f of it "
      "off the CPU) of %.3f s; %s",
      double(c.overhead) / c.total(), double(c.waiting) / c.total(), double(c.work) / c.total(),
      double(c.off_cpu) / c.total(), c.total() * 1e-9, r.out.c_str());
  EXPECT_LT(double(c.off_cpu), 0.1 * c.total());
  EXPECT_GT(c.overhead, c.work);
}

// Back-to-back balanced regions of 0.5 ms beside a busy process, under a passive policy and the
// default one: the main thread runs no serial code between them (a few microseconds of loop), so
// the workers are never idle by design. A worker woken late (asleep, or preempted while it
// spun) is being woken for its next region: fork overhead from that fork on. On libomp that
// time read as idle until 2026-11-28 (9% and 11% of the thread time here, 0.1% since).
TEST_P(Omp, WorkersWokenLateOnABusyMachineAreNotIdle) {
  for (const char* policy : {"passive", "active"}) {
    SCOPED_TRACE(policy);
    const std::string dir = fresh_dir(std::string("omp_region_sizes_woken_") + policy + GetParam());
    std::vector<std::string> argv = omprof_run(dir);
    argv.insert(argv.end(), {"--", program("omp_region_sizes_" + compiler()), "1000", "0.5"});
    RunResult r;
    {
      BusyProcess burner;
      r = run(argv, {{"OMP_WAIT_POLICY", policy}});
    }
    ASSERT_EQ(r.status, 0) << r.err;
    const viewer::Model user = viewer::build_model(only_profile(dir), omp::View::kUser);
    uint64_t idle = 0;
    for (const auto& s : user.samples)
      if (omp::is_idle(s.state)) idle += s.weight_ns;
    const Classes c = classes_of(user);
    std::printf("%s: idle %.4f, overhead %.4f of %.3f s; %s", policy, double(idle) / c.total(),
                double(c.overhead) / c.total(), c.total() * 1e-9, r.out.c_str());
    // Exact intervals, not samples: what is idle is the main thread's few microseconds between
    // a join and the next fork (1,000 of them), and its preemption there.
    EXPECT_LT(double(idle), 0.03 * c.total());
  }
}

// Each 2-thread region followed by a team of 1 that spins as long (2 ms, 100 times): the worker
// is left out of those, idle for as long as they last (the program's alone_s), not woken for
// them (until 2026-11-28 on libomp: woken, as fork overhead). Exact intervals on libomp: within
// a tenth and 10 ms (the 200 forks and joins between). On libgomp a spinning worker's idle is
// sampled (1,000 Hz here): each stratum of the worker's time straddles idle and work, so four
// standard errors of a half-and-half stratum, over all of them, on top.
TEST_P(Omp, AWorkerLeftOutOfASmallerTeamIsIdle) {
  const std::string dir = fresh_dir("omp_region_sizes_alone_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--rate", "1000", "--", program("omp_region_sizes_" + compiler()), "100",
                           "2", "alone"});
  const RunResult r = run(argv, {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t at = r.out.find("alone_s=");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double alone_s = std::atof(r.out.c_str() + at + 8);
  const viewer::Model user = viewer::build_model(only_profile(dir), omp::View::kUser);
  uint64_t idle = 0, worker_fork = 0;
  for (const auto& s : user.samples) {
    if (omp::is_idle(s.state)) idle += s.weight_ns;
    if (omp::is_overhead(s.state) && s.thread != 0) worker_fork += s.weight_ns;
  }
  std::printf("idle %.3f s, the worker's overhead %.3f s, alone %.3f s; %s", idle * 1e-9,
              worker_fork * 1e-9, alone_s, r.out.c_str());
  const double wall_s = std::atof(r.out.c_str() + r.out.find(" in ") + 4), period_s = 1e-3;
  const double sampled =
      GetParam() == "gcc" ? 4 * 0.5 * std::sqrt(2 * wall_s / period_s) * period_s : 0;
  EXPECT_NEAR(idle * 1e-9, alone_s, 0.1 * alone_s + 0.01 + sampled);
}

// A thread's time off the CPU goes where its samples saw it: on one CPU, `alone` (the master
// computing while its worker sleeps) is not preempted, `crowded` (both computing) is off the
// CPU half the time. Each function's time must be its wall time as the program measures it;
// spread evenly over the thread's work (as until 2026-11-28), `alone` read 1.32-1.33 s for
// 1.00 and `crowded` 1.66 for 1.98, on every runtime. Allowed: per repetition, one period of
// the preempted phase's time off the CPU (the gaps where a phase changes, shared by the samples
// on either side), and a tenth for sampling; at two rates.
TEST_P(Omp, OffCpuTimeGoesToThePhaseThatWasPreempted) {
  for (const char* rate : {"200", "1000"}) {
    SCOPED_TRACE(rate);
    const std::string dir = fresh_dir(std::string("omp_preempted_phases_") + rate + GetParam());
    std::vector<std::string> argv = omprof_run(dir);
    argv.insert(argv.end(),
                {"--rate", rate, "--", program("omp_preempted_phases_" + compiler()), "10", "0.1"});
    const RunResult r = run(argv, {{"OMP_WAIT_POLICY", "passive"}});
    ASSERT_EQ(r.status, 0) << r.err;
    double alone_wall = 0, alone_cpu = 0, crowded_wall = 0, crowded_cpu = 0;
    ASSERT_EQ(
        std::sscanf(r.out.c_str(), "alone_wall=%lf alone_cpu=%lf crowded_wall=%lf crowded_cpu=%lf",
                    &alone_wall, &alone_cpu, &crowded_wall, &crowded_cpu),
        4)
        << r.out;
    if (crowded_wall - crowded_cpu < 0.5 * crowded_cpu)
      GTEST_SKIP() << "the two threads did not share one CPU as designed: " << r.out;
    const viewer::Model user = viewer::build_model(only_profile(dir), omp::View::kUser);
    const double alone = total_ns(user, "alone") * 1e-9;
    const double crowded = total_ns(user, "crowded") * 1e-9;
    std::printf("alone %.3f s (wall %.3f), crowded %.3f s (wall %.3f); %s", alone, alone_wall,
                crowded, crowded_wall, r.out.c_str());
    const double period_s = 1.0 / std::atof(rate);
    const double tolerance = 10 * period_s + 0.1 * alone_cpu;
    EXPECT_NEAR(alone, alone_wall, tolerance);
    EXPECT_NEAR(crowded, crowded_wall, 2 * tolerance);
  }
}

// On a busy machine a woken worker also waits for a CPU, inside the fork's exact interval: the
// team's time off the CPU (measured by the program) is allowed on top.
TEST_P(Omp, CoarseRegionsHaveLittleOverhead) {
  const std::string dir = fresh_dir("omp_region_sizes_10ms_" + GetParam());
  std::vector<std::string> argv = omprof_run(dir);
  argv.insert(argv.end(), {"--", program("omp_region_sizes_" + compiler()), "100", "10"});
  const RunResult r = run(argv);
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t at = r.out.find("off_cpu=");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double off_cpu = std::atof(r.out.c_str() + at + 8);
  const Classes c = classes_of(viewer::build_model(only_profile(dir), omp::View::kUser));
  std::printf(
      "100 regions of 10 ms: overhead %.4f, waiting %.4f, work %.4f of %.3f s, team "
      "off the CPU %.3f s\n",
      double(c.overhead) / c.total(), double(c.waiting) / c.total(), double(c.work) / c.total(),
      c.total() * 1e-9, off_cpu);
  EXPECT_LT(double(c.overhead), 0.02 * c.total() + off_cpu * 1e9);
}

// Tasks of 1.5 ms each (omp_tasks: 200 of them): the runtime's bookkeeping is a small part.
TEST_P(Omp, CoarseTasksHaveLittleOverhead) {
  format::Profile p = profile("omp_tasks");
  viewer::Model user = viewer::build_model(p, omp::View::kUser);
  uint64_t overhead = 0;
  for (const auto& s : user.samples)
    if (omp::is_overhead(s.state)) overhead += s.weight_ns;
  EXPECT_LT(double(overhead), 0.05 * double(user.total_weight_ns));
}

INSTANTIATE_TEST_SUITE_P(Compilers, Omp, ::testing::Values("clang", "gcc", "gcc_libomp"));
INSTANTIATE_TEST_SUITE_P(Compilers, OmpTaskwait, ::testing::Values("clang", "gcc", "gcc_libomp"));

// A gcc-built program runs on the runtime it links, GNU libgomp, as without omprof (on LLVM
// libomp it is a different program: LULESH ran 3x faster there on a busy machine); omprof's
// wrappers of libgomp's entry points give its states. --omp-runtime=libomp runs it on libomp,
// for OMPT.
// A profile's state measurement table (Header.state_measurement) and a Measurement's, as text.
std::string header_measurement(const v1::Header& h) {
  std::string out;
  for (const auto& r : h.state_measurement())
    out += fmt::format("{:#x}-{:#x}:{} ", r.first_state(), r.last_state(), int(r.how()));
  return out;
}
std::string describe(const omp::Measurement& m) {
  std::string out;
  for (const omp::MeasuredStates& r : m.states)
    out += fmt::format("{:#x}-{:#x}:{} ", r.first, r.last, int(r.how));
  return out;
}

TEST(OmpRuntime, LibgompProgramsStayOnLibgomp) {
  const std::string dir = fresh_dir("omp_native");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("omp_imbalance_gcc"), "2", "30"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("libomp"), std::string::npos) << r.err;
  format::Profile p = only_profile(dir);
  EXPECT_FALSE(p.header.ompt_active());
  EXPECT_TRUE(p.header.off_cpu_waits());
  // How each state was measured (1.20): the libgomp wrappers' description, as readers use it.
  EXPECT_TRUE(p.header.wrapper_states());
  EXPECT_EQ(header_measurement(p.header), describe(omp::libgomp_measurement()));
  EXPECT_EQ(p.header.omp_runtime().rfind("libgomp.so.1", 0), 0u) << p.header.omp_runtime();
  EXPECT_EQ(p.header.omp_runtime().find("libomp.so"), std::string::npos) << p.header.omp_runtime();
  EXPECT_NE(p.header.omp_note().find("omprof's wrappers"), std::string::npos);
  RunResult rep = run({OMPROF_BIN, "report", profiles_in(dir)[0]});
  EXPECT_NE(rep.out.find("OpenMP:    libgomp.so.1"), std::string::npos) << rep.out;

  const std::string swapped = fresh_dir("omp_swapped");
  r = run({OMPROF_BIN, "run", "--omp-runtime=libomp", "-o", swapped, "--",
           program("omp_imbalance_gcc"), "2", "30"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("on LLVM libomp instead of GNU libgomp"), std::string::npos) << r.err;
  format::Profile q = only_profile(swapped);
  EXPECT_TRUE(q.header.ompt_active());
  EXPECT_FALSE(q.header.off_cpu_waits());
  EXPECT_FALSE(q.header.wrapper_states());
  EXPECT_EQ(header_measurement(q.header),
            describe(omp::ompt_measurement(!q.header.taskwait_sampled())));
}

}  // namespace
}  // namespace omprof::test
