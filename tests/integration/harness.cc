#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "proto/journal_reader.h"
#include "viewer/symbolize.h"

namespace omprof::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  char out_tmpl[] = "/tmp/omprof-test-out.XXXXXX";
  char err_tmpl[] = "/tmp/omprof-test-err.XXXXXX";
  int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  RunResult r;
  r.max_rss_kb = usage.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  close(out_fd);
  close(err_fd);
  r.out = slurp(out_tmpl);
  r.err = slurp(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}

const char* omprof_command() {
  const char* other = getenv("OMPROF_TEST_COMMAND");
  return other && *other ? other : OMPROF_BUILT_COMMAND;
}

std::string program(const std::string& name) {
  return std::string(TEST_BIN_DIR) + "/" + name;
}

std::string fresh_dir(const std::string& name) {
  std::string base = TEST_OUT_DIR;
  mkdir(base.c_str(), 0755);
  std::string dir = base + "/" + name;
  std::filesystem::remove_all(dir);  // profiles, journals, MPI summaries of an earlier run
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::string page_data(const std::string& html) {
  const std::string open = "<script id=\"data\" type=\"application/json\">";
  const size_t at = html.find(open);
  if (at == std::string::npos) return "";
  const size_t end = html.find("</script>", at);
  return end == std::string::npos ? "" : html.substr(at + open.size(), end - at - open.size());
}

std::vector<std::string> profiles_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      // Journals too: a process that wrote its profile leaves none behind.
      if ((n.size() > 7 && n.substr(n.size() - 7) == ".omprof") || format::is_journal_path(n))
        out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  return out;
}

format::Profile only_profile(const std::string& dir) {
  auto files = profiles_in(dir);
  EXPECT_EQ(files.size(), 1u) << "profiles in " << dir;
  if (files.empty()) throw std::runtime_error("no profile in " + dir);
  static viewer::SymbolCache symbols;
  return viewer::load_profile(files.front(), symbols);
}

uint64_t self_ns(const viewer::Model& m, const std::string& function) {
  uint64_t ns = 0;
  for (const auto& s : m.samples)
    if (!s.stack.empty() && s.stack.front().name == function) ns += s.weight_ns;
  return ns;
}

bool has_frame(const omp::FrameStack& s, const std::string& function) {
  for (const auto& f : s)
    if (f.name == function) return true;
  return false;
}

bool task_clock_usable() {
  return run({OMPROF_BIN, "run", "--clock", "task", "-o", fresh_dir("task_probe"), "--",
              "/bin/true"})
             .status == 0;
}

BusyProcess::BusyProcess() {
  pid_ = fork();
  if (pid_ == 0) {
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
}

BusyProcess::~BusyProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

uint64_t total_ns(const viewer::Model& m, const std::string& function) {
  uint64_t ns = 0;
  for (const auto& s : m.samples)
    if (has_frame(s.stack, function)) ns += s.weight_ns;
  return ns;
}

}  // namespace omprof::test

namespace omprof::test {

double sampling_tolerance(double p, uint64_t samples) {
  if (samples == 0) return 1.0;
  const double se = std::sqrt(p * (1 - p) / double(samples));
  return std::max(0.005, 4 * se);
}

PeriodicShares expect_periodic_shares(const RunResult& r, const std::string& dir) {
  PeriodicShares s;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::sscanf(r.out.c_str(), "a=%lf b=%lf", &s.a_s, &s.b_s), 2) << r.out;
  if (s.a_s + s.b_s <= 0) return s;
  const double truth = s.a_s / (s.a_s + s.b_s);
  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  s.in_a_s = 1e-9 * double(total_ns(m, "phase_a"));
  s.in_b_s = 1e-9 * double(total_ns(m, "phase_b"));
  EXPECT_GT(s.in_a_s + s.in_b_s, 0);
  if (s.in_a_s + s.in_b_s <= 0) return s;
  EXPECT_NEAR(s.in_a_s / (s.in_a_s + s.in_b_s), truth, sampling_tolerance(truth, m.total_samples))
      << m.total_samples << " samples";
  return s;
}

}  // namespace omprof::test
