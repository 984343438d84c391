// Profiles that survive the program's death (docs/format.md, "The journal"): for each way a
// program can end, omprof run leaves a profile whose designed CPU split is right, whose header
// states the ending, and the parent sees the same exit status or signal as without omprof.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <utime.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "proto/journal_reader.h"
#include "proto/profile_reader.h"

namespace omprof::test {
namespace {

struct Ending {
  const char* mode;
  int exit_status;  // expected, when the program exits
  int signal;       // expected, when it is killed
  bool recovered;   // the profile comes from the journal (no exit handlers ran)
};

std::string name_of(const testing::TestParamInfo<Ending>& info) {
  std::string n = info.param.mode;
  for (char& c : n)
    if (c == '_') c = 'U';
  return n;
}

void PrintTo(const Ending& e, std::ostream* os) {
  *os << e.mode;
}

class Endings : public testing::TestWithParam<Ending> {};

// heavy() takes 3 ms and light() 1 ms of every 4 ms round on both threads, so heavy's share of
// the sampled work is 75% at any moment, whenever the program dies.
TEST_P(Endings, TheProfileSurvivesWithTheDesignedSplitAndTheEnding) {
  const Ending& e = GetParam();
  const std::string bin = program("omp_endings_clang");
  const RunResult alone = run({bin, e.mode, "0.4"});
  EXPECT_EQ(alone.signal, e.signal);
  if (!e.signal) {
    EXPECT_EQ(alone.status, e.exit_status);
  }

  const std::string dir = fresh_dir(std::string("ending_") + e.mode);
  const RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", bin, e.mode, "0.4"});
  EXPECT_EQ(r.signal, alone.signal) << r.err;
  EXPECT_EQ(r.status, alone.status) << r.err;

  const format::Profile p = only_profile(dir);
  const v1::Ending& end = p.header.ending();
  if (e.signal) {
    EXPECT_EQ(end.kind(), v1::Ending::ENDING_SIGNALED);
    EXPECT_EQ(int(end.signal()), e.signal);
  } else {
    EXPECT_EQ(end.kind(), v1::Ending::ENDING_EXITED);
    EXPECT_EQ(end.exit_status(), e.exit_status);
  }
  EXPECT_EQ(p.header.recovered(), e.recovered);
  for (const auto& f : profiles_in(dir)) EXPECT_FALSE(format::is_journal_path(f)) << f;

  const viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const double heavy = double(total_ns(m, "heavy")), light = double(total_ns(m, "light"));
  uint64_t samples = 0;
  for (const auto& [i, t] : p.threads)
    for (const auto& s : t.sample()) samples += s.count();
  ASSERT_GT(samples, 50u) << "0.8 s of CPU at 200 Hz";
  const double share = heavy / (heavy + light);
  EXPECT_NEAR(share, 0.75, sampling_tolerance(0.75, samples)) << samples << " samples";
  // Both threads, under the parallel region of compute() in the user model.
  EXPECT_GE(p.threads.size(), 2u);
  EXPECT_GT(total_ns(m, "compute"), uint64_t(0.9 * (heavy + light)));
}

// xcpu: the CPU-time limit of 1 s (setrlimit, like `ulimit -t 1`) kills the rounds.
INSTANTIATE_TEST_SUITE_P(
    Run, Endings,
    testing::Values(Ending{"exit", 0, 0, false}, Ending{"status", 7, 0, false},
                    Ending{"worker_exit", 5, 0, false}, Ending{"_exit", 3, 0, true},
                    Ending{"segv", 0, SIGSEGV, true}, Ending{"abort", 0, SIGABRT, true},
                    Ending{"term", 0, SIGTERM, true}, Ending{"int", 0, SIGINT, true},
                    Ending{"hup", 0, SIGHUP, true}, Ending{"kill", 0, SIGKILL, true},
                    Ending{"xcpu", 0, SIGXCPU, true}),
    name_of);

// A journal left behind with nobody to recover it (omprof killed with the program, or a bare
// LD_PRELOAD): `omprof report` reads it, says the ending was not observed, and a damaged one
// is a one-line error.
TEST(Journal, ALeftoverJournalIsReadByReport) {
  const std::string dir = fresh_dir("journal_leftover");
  const RunResult r = run({program("omp_endings_clang"), "kill", "0.3"},
                          {{"LD_PRELOAD", OMPROF_LIB}, {"OMPROF_OUTPUT", dir}});
  EXPECT_EQ(r.signal, SIGKILL);
  const std::vector<std::string> files = profiles_in(dir);
  ASSERT_EQ(files.size(), 1u);
  ASSERT_TRUE(format::is_journal_path(files[0])) << files[0];
  const RunResult rep = run({OMPROF_BIN, "report", dir});
  EXPECT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("Ended:     not observed"), std::string::npos) << rep.out;
  // The program's own functions, from the journal's stacks. Not heavy() by name: without
  // `omprof run` the collector samples on kernel ticks (the cpu clock), and the program's rounds
  // of 4 ms of CPU time are one tick of a 250 Hz kernel: the ticks can all fall in light()
  // (docs/semantics.md, Clocks; 2 runs of 20 here).
  EXPECT_NE(rep.out.find("compute"), std::string::npos) << rep.out;
  // The wall clock is known only at the end of a run the collector saw end.
  EXPECT_EQ(rep.out.find("Timing:"), std::string::npos) << rep.out;

  // Cut short: an error naming the file, never a crash.
  const std::string cut = dir + "/cut.ompjournal";
  {
    std::ifstream in(files[0], std::ios::binary);
    std::string head(200, '\0');
    in.read(head.data(), head.size());
    std::ofstream(cut, std::ios::binary) << head;
  }
  const RunResult bad = run({OMPROF_BIN, "report", cut});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("cut.ompjournal: truncated journal"), std::string::npos) << bad.err;

  // A damaged entry area (every entry's payload overwritten) is named as damage, not as a
  // process that "died at start".
  const std::string damaged = dir + "/damaged.ompjournal";
  {
    std::ifstream in(files[0], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Entries: a 4-byte length, a 4-byte committed flag, the payload, 8-byte aligned.
    for (size_t at = 4096; at + 8 <= bytes.size();) {
      uint32_t length = 0;
      std::memcpy(&length, &bytes[at], 4);
      if (length == 0) break;
      for (size_t i = at + 8; i < at + 8 + length && i < bytes.size(); ++i) bytes[i] = '\xff';
      at += (8 + length + 7) & ~size_t(7);
    }
    std::ofstream(damaged, std::ios::binary) << bytes;
  }
  const RunResult corrupt = run({OMPROF_BIN, "report", damaged});
  EXPECT_EQ(corrupt.status, 1);
  EXPECT_NE(corrupt.err.find("damaged.ompjournal: corrupt journal: no readable start entry"),
            std::string::npos)
      << corrupt.err;
}

// A journal nobody saw end takes its duration from its threads' latest samples, not from the
// file's mtime, which stores to a shared mapping do not update (a 3 s run read 1.672 s or
// 0.000 s). The program spins on both threads until it kills itself: the last sample is within
// a few periods of its death.
TEST(Journal, AnUnobservedEndIsTheLatestSample) {
  const std::string dir = fresh_dir("journal_duration");
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run({program("omp_endings_clang"), "kill", "1.0"},
                          {{"LD_PRELOAD", OMPROF_LIB}, {"OMPROF_OUTPUT", dir}});
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.signal, SIGKILL);
  const std::vector<std::string> files = profiles_in(dir);
  ASSERT_EQ(files.size(), 1u);
  ::utime(files[0].c_str(), nullptr);  // the mtime is no help: now, after the run ended
  const RunResult rep = run({OMPROF_BIN, "report", "--format", "json", dir});
  ASSERT_EQ(rep.status, 0) << rep.err;
  const double duration_s =
      nlohmann::json::parse(rep.out).at("header").at("duration_s").get<double>();
  EXPECT_LE(duration_s, wall_s);
  EXPECT_GE(duration_s, wall_s - 0.1) << "wall " << wall_s;
}

}  // namespace
}  // namespace omprof::test
