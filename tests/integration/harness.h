// Helpers for integration tests: run commands, find the profile they wrote, and measure
// shares in it through the viewer's model (the same code `omprof report` uses).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "viewer/model.h"

// The omprof command the tests run: this build's, or the one OMPROF_TEST_COMMAND names
// (scripts/test.sh runs some of these tests again with an AddressSanitizer build of it).
#define OMPROF_BIN ::omprof::test::omprof_command()

namespace omprof::test {

const char* omprof_command();

struct RunResult {
  int status = -1;  // exit code, or 128 + signal
  int signal = 0;   // the signal that killed it, 0 if it exited
  std::string out, err;
  long max_rss_kb = 0;  // the largest resident set of the process and its waited-for children
};

RunResult run(const std::vector<std::string>& argv,
              const std::map<std::string, std::string>& env = {});

std::string slurp(const std::string& path);  // a file's bytes (empty if unreadable)
// The JSON text of an `omprof view` page's data block (empty if the page has none).
std::string page_data(const std::string& html);
std::string program(const std::string& name);    // path of a test program
std::string fresh_dir(const std::string& name);  // empty directory for one test's output
std::vector<std::string> profiles_in(const std::string& dir);
format::Profile only_profile(const std::string& dir);  // fails the test unless exactly one

// Sums over a model.
uint64_t self_ns(const viewer::Model& m, const std::string& function);
uint64_t total_ns(const viewer::Model& m, const std::string& function);
bool has_frame(const omp::FrameStack& s, const std::string& function);

// Whether omprof run --clock task works here (perf_event_open allowed); tests skip otherwise.
bool task_clock_usable();

// A competing CPU-bound process for as long as it lives (a busy machine).
class BusyProcess {
 public:
  BusyProcess();
  ~BusyProcess();
  BusyProcess(const BusyProcess&) = delete;
  BusyProcess& operator=(const BusyProcess&) = delete;

 private:
  int pid_ = -1;
};

}  // namespace omprof::test

namespace omprof::test {

// Tolerance for a sampled share `p` estimated from `samples` samples: four binomial standard
// errors (stratified sampling does at least as well), never below half a point. A designed
// share outside it is a real error, not sampling noise, with probability above 99.99%.
double sampling_tolerance(double p, uint64_t samples);

// tests/programs/periodic, run under omprof into `dir` with result `r`: phase_a's share of the
// profile must be the share the program measured (its "a=... b=..." line), within sampling
// error. Returns the program's CPU seconds in each phase and the profile's seconds in each.
struct PeriodicShares {
  double a_s = 0, b_s = 0;        // measured by the program
  double in_a_s = 0, in_b_s = 0;  // in the profile
};
PeriodicShares expect_periodic_shares(const RunResult& r, const std::string& dir);

}  // namespace omprof::test
