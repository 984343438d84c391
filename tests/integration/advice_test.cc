// `omprof advise` against designed problems (tests/programs/omp_advice.c): the top finding must
// name the designed problem at the right place, and the gain it predicts must be the time the
// program's own fix saves (medians of interleaved runs without omprof, as the program measures
// its elapsed time), within 20% and the spread of those runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace omprof::test {
namespace {

double elapsed_of(const RunResult& r) {
  const size_t at = r.out.find("elapsed_s ");
  return at == std::string::npos ? -1 : std::stod(r.out.substr(at + 10));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Half the range of a few runs' times: how far the VM's speed moved a median of them.
double half_range(const std::vector<double>& v) {
  const auto [least, most] = std::minmax_element(v.begin(), v.end());
  return (*most - *least) / 2;
}

class Advise : public ::testing::TestWithParam<std::string> {
 protected:
  std::string app() const { return program("omp_advice_" + GetParam()); }
  const std::map<std::string, std::string> env_ = {{"OMP_NUM_THREADS", "2"}};

  // `profiled_elapsed`, if given, gets the profiled run's elapsed time as the program measured
  // it; `dir_out`, the directory of its profile.
  nlohmann::json advise(const std::string& mode, const std::string& rounds = "4",
                        const std::string& rate = "200", double* profiled_elapsed = nullptr,
                        std::string* dir_out = nullptr) {
    const std::string dir = fresh_dir("advise_" + mode);
    if (dir_out) *dir_out = dir;
    const RunResult r = run(
        {OMPROF_BIN, "run", "--rate", rate, "-o", dir, "--", app(), mode, "nofix", rounds}, env_);
    EXPECT_EQ(r.status, 0) << r.err;
    if (profiled_elapsed) *profiled_elapsed = elapsed_of(r);
    const RunResult a = run({OMPROF_BIN, "advise", "--json", dir});
    EXPECT_EQ(a.status, 0) << a.err;
    return nlohmann::json::parse(a.out);
  }
};

struct Designed {
  const char* mode;
  const char* kind;      // the top finding's
  const char* function;  // where it must point
  const char* rounds = "4";
  // The tasks' overhead and waits are a quarter of the run, sampled: at 200 Hz their error is
  // about 15% of the gain, at 1 kHz 5%.
  const char* rate = "200";
};

TEST_P(Advise, TheTopFindingIsTheDesignedProblemAndItsGainHolds) {
  const Designed cases[] = {
      {"imbalance", "load_imbalance", "uneven_loop"},
      {"serial", "serial_code", "setup_serially"},
      {"tiny", "fork_join_overhead", "tiny_regions"},
      {"lock", "lock_contention", "locked_updates"},
      {"tasks", "task_overhead", "fine_tasks", "16", "1000"},
  };
  for (const Designed& d : cases) {
    SCOPED_TRACE(d.mode);
    // Three rounds, each a profiled run (its top finding's gain), the program alone and the
    // program fixed: medians of each, interleaved (the VM's speed drifts over seconds).
    std::vector<double> predictions, before, after, profiled;
    for (int round = 0; round < 3; ++round) {
      double profiled_elapsed = 0;
      const nlohmann::json a = advise(d.mode, d.rounds, d.rate, &profiled_elapsed);
      profiled.push_back(profiled_elapsed);
      ASSERT_FALSE(a["findings"].empty()) << a.dump(2);
      const nlohmann::json& top = a["findings"][0];
      EXPECT_EQ(top.value("kind", ""), d.kind) << a.dump(2);
      EXPECT_NE(top.value("where", "").find(d.function), std::string::npos) << top.dump(2);
      EXPECT_TRUE(top.value("significant", false)) << top.dump(2);
      predictions.push_back(top.value("gain_s", 0.0));
      before.push_back(elapsed_of(run({app(), d.mode, "nofix", d.rounds}, env_)));
      after.push_back(elapsed_of(run({app(), d.mode, "fix", d.rounds}, env_)));
    }
    const double predicted = median(predictions), measured = median(before) - median(after);
    // The saving is itself a measurement: a difference of medians of runs whose speed drifts.
    const double noise = half_range(before) + half_range(after);
    std::printf("%s: predicted %.3f s, the fix saved %.3f s (+-%.3f s between runs)\n", d.mode,
                predicted, measured, noise);
    // Known errors (docs/semantics.md "Advice"): omprof's own work at every fork and join
    // (tiny regions) or every task (tasks: its callbacks or wrappers, and the runtime's own
    // tool paths) runs inside the runtime's, and the profile cannot tell all of it from the
    // runtime's: the prediction can hold up to all of what omprof added to the run. That bound
    // is the program's own: the profiled run's elapsed time less its time alone.
    const double added = std::max(0.0, median(profiled) - median(before));
    std::printf("%s: omprof added %.3f s to the run\n", d.mode, added);
    if (std::string(d.mode) == "tiny") {
      // 0.55 s against 0.35 s alone on libomp, on this 2-vCPU VM.
      EXPECT_GT(predicted, 0.5 * measured - noise);
      EXPECT_LT(predicted, 1.2 * (measured + added) + noise);
      continue;
    }
    if (std::string(d.mode) == "tasks") {
      // The parents' taskwait waits for children that omprof made longer (0.075 s added to
      // 0.535 s on libomp; predicted 0.160-0.183 s against 0.157 s saved here, 0.203 s
      // against 0.165 s in a CI run); on libgomp its wrapping of each task also slows
      // libgomp's own part of it.
      EXPECT_GT(predicted, 0.8 * measured - noise);
      EXPECT_LT(predicted, 1.2 * measured + added + noise);
      continue;
    }
    EXPECT_NEAR(predicted, measured, 0.2 * measured + noise);
  }
}

// Balanced regions of 50 ms: nothing worth 5% of the run. But the machine's: where the threads
// really waited for a CPU while working (a busy VM, its host), the advice to give the run its
// own cores is right, and its time off the CPU is at most what the kernel says they waited
// (their run delay) plus 0.05 s of sampling error (ten periods at 200 Hz).
TEST_P(Advise, AProgramWithoutAProblemHasNoLargeFinding) {
  std::string dir;
  const nlohmann::json a = advise("clean", "4", "200", nullptr, &dir);
  const RunResult rep = run({OMPROF_BIN, "report", "--json", dir});
  ASSERT_EQ(rep.status, 0) << rep.err;
  const nlohmann::json report = nlohmann::json::parse(rep.out);
  double run_delay_s = 0;
  for (const nlohmann::json& t : report["threads"])
    if (t["runq_s"].is_number()) run_delay_s += t["runq_s"].get<double>();
  for (const nlohmann::json& f : a["findings"]) {
    if (f.value("kind", "") == "off_cpu") {
      EXPECT_LT(f["numbers"].value("off_cpu_thread_s", 0.0), run_delay_s + 0.05)
          << f.dump(2) << report["threads"].dump();
      continue;
    }
    EXPECT_LT(f.value("gain%", 0.0), 5.0) << f.dump(2);
  }
}

INSTANTIATE_TEST_SUITE_P(Compilers, Advise, ::testing::Values("clang", "gcc"));

// What has nothing to advise on says so in a sentence, and invents nothing.
TEST(AdviseInput, NothingToSayIsASentence) {
  const std::string one = fresh_dir("advise_one_thread");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", one, "--", program("omp_advice_clang"), "imbalance",
                 "nofix", "2"},
                {{"OMP_NUM_THREADS", "1"}})
                .status,
            0);
  // Over 5% of the run (a VM may preempt a thread for 1% of it: a true off_cpu finding).
  const RunResult a = run({OMPROF_BIN, "advise", "--min-percent", "5", one});
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("no finding would save"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("one thread, one rank"), std::string::npos) << a.out;
  const std::string empty = fresh_dir("advise_no_samples");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", empty, "--", program("exit_status"), "0"}).status, 0);
  const RunResult b = run({OMPROF_BIN, "advise", "--json", empty});
  EXPECT_EQ(b.status, 0) << b.err;
  const nlohmann::json j = nlohmann::json::parse(b.out);
  EXPECT_TRUE(j["findings"].empty()) << b.out;
  EXPECT_FALSE(j.value("note", "").empty()) << b.out;
  const RunResult missing = run({OMPROF_BIN, "advise", one + "/nothing"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

// Two threads on one CPU (taskset): they take turns, and fewer threads would not give the time
// off the CPU back. advise says so as a warning, with no off_cpu gain.
TEST(AdviseInput, ThreadsOutnumberingTheirCpusAreAWarningNotAGain) {
  const std::string dir = fresh_dir("advise_one_cpu");
  const RunResult r = run({"/usr/bin/taskset", "-c", "0", OMPROF_BIN, "run", "-o", dir, "--",
                           program("omp_advice_clang"), "clean", "nofix", "2"},
                          {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(r.status, 0) << r.err;
  const RunResult a = run({OMPROF_BIN, "advise", "--json", dir});
  ASSERT_EQ(a.status, 0) << a.err;
  const nlohmann::json j = nlohmann::json::parse(a.out);
  ASSERT_EQ(j["warnings"].size(), 1u) << a.out;
  EXPECT_NE(j["warnings"][0].get<std::string>().find("2 threads per rank ran on 1 CPU"),
            std::string::npos)
      << a.out;
  for (const nlohmann::json& f : j["findings"]) EXPECT_NE(f.value("kind", ""), "off_cpu") << a.out;
  // The same program with a CPU per thread: no warning.
  const std::string two = fresh_dir("advise_two_cpus");
  ASSERT_EQ(
      run({OMPROF_BIN, "run", "-o", two, "--", program("omp_advice_clang"), "clean", "nofix", "2"},
          {{"OMP_NUM_THREADS", "2"}})
          .status,
      0);
  const nlohmann::json k = nlohmann::json::parse(run({OMPROF_BIN, "advise", "--json", two}).out);
  EXPECT_TRUE(k["warnings"].empty()) << k.dump(2);
}

}  // namespace
}  // namespace omprof::test
