// The profiled program is the same program: its heap behaves as without omprof. A program with
// LULESH's pattern (large arrays allocated, filled at 30 parallel constructs and freed every
// step) grows and trims glibc's heap every step; an allocation by the tool from the program's
// heap while the arrays are live would pin the heap's top and remove that cost.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "harness.h"
#include "viewer/model.h"

namespace omprof::test {
namespace {

// brk calls of a command and its children, counted by strace; -1 if strace cannot trace here.
long brk_calls(std::vector<std::string> command, std::string& out) {
  const std::string log = fresh_dir("strace_log") + "/brk";
  std::vector<std::string> argv = {"/usr/bin/strace", "-f", "-qq", "-c", "-e",
                                   "trace=brk",       "-o", log};
  argv.insert(argv.end(), command.begin(), command.end());
  RunResult r = run(argv);
  out = r.out;
  if (r.status != 0) return -1;
  FILE* f = std::fopen(log.c_str(), "r");
  if (!f) return -1;
  char line[512];
  long calls = -1;
  while (std::fgets(line, sizeof line, f)) {
    double pct, seconds;
    long usecs, n;
    char name[64];
    if (std::sscanf(line, "%lf %lf %ld %ld %63s", &pct, &seconds, &usecs, &n, name) == 5 &&
        std::string(name) == "brk")
      calls = n;
    else if (std::sscanf(line, "%lf %lf %ld %ld %*d %63s", &pct, &seconds, &usecs, &n, name) == 5 &&
             std::string(name) == "brk")
      calls = n;
  }
  std::fclose(f);
  return calls;
}

class SameProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(SameProgram, HeapGrowsAndShrinksAsWithoutOmprof) {
  if (run({"/usr/bin/strace", "-o", "/dev/null", "/bin/true"}).status != 0)
    GTEST_SKIP() << "strace cannot trace processes here";
  const std::string app = program("omp_heap_steps_" + GetParam());
  std::string plain_out, profiled_out;
  const long plain = brk_calls({app, "40"}, plain_out);
  const std::string dir = fresh_dir("heap_steps_" + GetParam());
  const long profiled = brk_calls({OMPROF_BIN, "run", "-o", dir, "--", app, "40"}, profiled_out);
  ASSERT_GT(plain, 100) << "the program should grow and trim its heap every step";
  EXPECT_NEAR(double(profiled), double(plain), 0.1 * double(plain));
  EXPECT_EQ(profiled_out, plain_out);
  EXPECT_EQ(profiles_in(dir).size(), 1u);
}

// Task bodies get what they were given, under omprof as without it: on libgomp omprof hands
// each deferred task to the runtime behind its own header (gomp/gomp_wrappers.cc), so C++
// firstprivate objects, over-aligned data, blocks too large to wrap, dependences, nested and
// if(0) tasks are checked by the program itself, and its output compared. The gcc build's
// tasks are placed under their creation paths, so the wrapping did happen.
TEST_P(SameProgram, TaskBodiesGetTheirData) {
  const std::string app = program("omp_task_data_" + GetParam());
  const RunResult plain = run({app}, {{"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(plain.status, 0) << plain.out;
  const std::string dir = fresh_dir("task_data_" + GetParam());
  const RunResult profiled =
      run({OMPROF_BIN, "run", "-o", dir, "--", app}, {{"OMP_NUM_THREADS", "2"}});
  EXPECT_EQ(profiled.status, 0) << profiled.err;
  EXPECT_EQ(profiled.out, plain.out);
  ASSERT_EQ(profiles_in(dir).size(), 1u);
  const viewer::Model m = viewer::build_model(only_profile(dir), omp::View::kUser);
  size_t task_records = 0;
  for (const auto& [id, fork] : m.forks) task_records += fork.task;
  // Six task constructs create deferred tasks; the one with a 16 KB block is not wrapped on
  // libgomp.
  EXPECT_GE(task_records, 5u);
}

INSTANTIATE_TEST_SUITE_P(Compilers, SameProgram, ::testing::Values("clang", "gcc"));

}  // namespace
}  // namespace omprof::test
