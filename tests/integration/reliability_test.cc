// omprof under hostile conditions (issue 7): many short threads, unloaded libraries, programs
// that block or steal what the collector needs. The program must run as without omprof, and
// whatever omprof could not measure must be counted and said, never silently missing.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness.h"

namespace omprof::test {
namespace {

// 2,000 threads in rounds of 10, each 1 ms of CPU: far shorter than the 5 ms period, so each
// thread gets at most one sample, with probability 1/5. Every thread is tracked, memory stays
// bounded, and the samples still add up to the CPU time the threads measured: a thread that ends
// before its random sampling instant contributes nothing, one that reaches it a whole period.
TEST(ManyThreads, ShortThreadsAreSampledWithoutBiasInBoundedMemory) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const int rounds = 200, per_round = 10;
  const double ms = 1.0;
  std::string dir = fresh_dir("many_threads");
  RunResult r = run({OMPROF_BIN, "run", "--clock", "task", "-o", dir, "--", program("many_threads"),
                     std::to_string(rounds), std::to_string(per_round), std::to_string(ms)});
  ASSERT_EQ(r.status, 0) << r.err;
  double cpu_in_work = 0;
  int threads = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "threads=%d cpu_in_work=%lf", &threads, &cpu_in_work), 2)
      << r.out;
  EXPECT_EQ(threads, rounds * per_round);
  // The issue's bound: 100 MB for 2,000 short threads (the program alone needs about 2 MB).
  EXPECT_LT(r.max_rss_kb, 100 * 1024);

  format::Profile p = only_profile(dir);
  EXPECT_EQ(p.threads.size(), size_t(threads + 1));
  EXPECT_EQ(p.trailer.threads_untracked(), 0u);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  const double sampled = double(total_ns(m, "short_work")) * 1e-9;
  // Per thread a Bernoulli(q) sample of one period, q = its CPU time / period; four standard
  // errors of the sum.
  const double period = double(p.header.period_ns()) * 1e-9;
  const double q = std::min(1.0, cpu_in_work / threads / period);
  const double tolerance = 4 * period * std::sqrt(threads * q * (1 - q)) + 0.01;
  EXPECT_NEAR(sampled, cpu_in_work, tolerance);
}

RunResult run_hostile(const std::string& mode, const std::string& dir,
                      const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {OMPROF_BIN, "run", "-o", dir};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", program("hostile"), mode});
  return run(argv);
}

std::string report_of(const std::string& dir) {
  return run({OMPROF_BIN, "report", dir}).out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Threads of 16 KB and 64 KB stacks spinning with 4 KB or 6 KB of them left, sampled at 1 kHz
// on every clock: the program runs as alone (the handler needs about 11 KB to unwind, and
// crashed such threads with SIGSEGV), and the samples taken without unwinding keep their pc,
// their weight and their count in the profile.
class SmallStacks : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SmallStacks, RunAsAloneAndTheirSamplesAreCounted) {
  const auto& [clock, free_bytes] = GetParam();
  if (clock == "task" && !task_clock_usable())
    GTEST_SKIP() << "perf_event task-clock not available";
  const std::string arg = std::to_string(free_bytes);
  RunResult alone = run({program("small_stacks"), arg});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const std::string dir = fresh_dir("small_stacks_" + clock + arg);
  RunResult r = run({OMPROF_BIN, "run", "--clock", clock, "--rate", "1000", "-o", dir, "--",
                     program("small_stacks"), arg});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, alone.out);  // "stack_kb 16 left_bytes ..." lines: the same stack use
  format::Profile p = only_profile(dir);
  uint64_t short_stack = 0, unwind_failed = 0, spinner_samples = 0;
  for (const auto& [i, t] : p.threads) {
    short_stack += t.short_stack_samples();
    unwind_failed += t.unwind_failed();
    if (!t.is_main())
      for (const auto& s : t.sample()) spinner_samples += s.count();
  }
  // Two threads spin 0.3 s of CPU time each with the stack nearly used up: about 600 samples
  // (150 on the cpu clock, which fires on 250 Hz ticks), all but a few taken on a short stack.
  EXPECT_GT(spinner_samples, 50u);
  EXPECT_GE(short_stack, spinner_samples * 9 / 10);
  EXPECT_GE(unwind_failed, short_stack);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  EXPECT_GT(self_ns(m, "spin_with_little_stack"), uint64_t(0.4e9));
  RunResult rep = run({OMPROF_BIN, "report", dir});
  EXPECT_NE(rep.out.find("too little of the thread's stack was left"), std::string::npos)
      << rep.out;
}

INSTANTIATE_TEST_SUITE_P(Clocks, SmallStacks,
                         ::testing::Combine(::testing::Values("task", "cpu", "wall"),
                                            ::testing::Values(4096, 6144)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

// A filesystem of 256 KB (tmpfs), mounted for one test and filled to `free_kb`; unmounted at
// the end. Needs the right to mount (root): tests skip where it is missing.
class SmallFilesystem {
 public:
  SmallFilesystem(const std::string& name, int free_kb) : dir_(fresh_dir(name)) {
    mounted_ = run({"/bin/mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir_}).status == 0;
    if (!mounted_) return;
    const long fill_kb = 256 - free_kb;
    run({"/bin/dd", "if=/dev/zero", "of=" + dir_ + "/fill", "bs=1024",
         "count=" + std::to_string(fill_kb)});
    run({"/bin/mkdir", dir_ + "/out"});
  }
  ~SmallFilesystem() {
    if (mounted_) run({"/bin/umount", dir_});
  }
  bool mounted() const { return mounted_; }
  std::string out() const { return dir_ + "/out"; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

// A full disk: the journal's pages that the filesystem cannot back are kept in memory, so the
// program runs exactly as alone (it died with SIGBUS, exit 135), omprof says what it could not
// keep, and no empty or partial profile is left behind. With 0 bytes free, nothing is left.
class FullDisk : public ::testing::TestWithParam<int> {};

TEST_P(FullDisk, TheProgramRunsAsAloneAndNoEmptyProfileIsLeft) {
  SmallFilesystem fs("full_disk_" + std::to_string(GetParam()), GetParam());
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  RunResult alone = run({program("heavy_light")});
  RunResult r = run({OMPROF_BIN, "run", "-o", fs.out(), "--", program("heavy_light")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.out, alone.out);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  struct stat st {};
  for (const std::string& p : profiles_in(fs.out()))
    if (stat(p.c_str(), &st) == 0) {
      EXPECT_GT(st.st_size, 0) << p;
    }
  // What is left is readable: a journal with its header, or nothing.
  if (!profiles_in(fs.out()).empty()) {
    RunResult rep = run({OMPROF_BIN, "report", fs.out()});
    EXPECT_EQ(rep.signal, 0) << rep.err;
  }
}

INSTANTIATE_TEST_SUITE_P(FreeKb, FullDisk, ::testing::Values(48, 0));

// Another process truncates the journal while the program runs (the program died with SIGBUS,
// then with SIGPROF once its thread states read as zero): the program runs on as alone, omprof
// stops measuring and says why there is no profile. A plain program and an OpenMP one (gcc).
TEST(Hostile, AJournalTruncatedByAnotherProcessLeavesTheProgramAlone) {
  for (const std::string& cmd : std::vector<std::string>{
           program("heavy_light"), program("omp_endings_gcc") + " status 1.5"}) {
    const std::string dir = fresh_dir("truncated_journal");
    RunResult alone = run({"/bin/sh", "-c", cmd + "; echo status=$?"});
    RunResult r =
        run({"/bin/sh", "-c",
             std::string(OMPROF_BIN) + " run -o " + dir + " -- " + cmd +
                 " & sleep 0.5; truncate -s 0 " + dir + "/*.ompjournal; wait $!; echo status=$?"},
            {{"OMP_NUM_THREADS", "2"}});
    const std::string status = alone.out.substr(alone.out.rfind("status="));
    EXPECT_NE(r.out.find(status), std::string::npos) << cmd << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("another process truncated the journal"), std::string::npos)
        << cmd << ": " << r.err;
  }
}

// report, diff and export to a full device: one line and a non-zero status (they exited 0 with
// nothing written).
TEST(Viewer, OutputThatCannotBeWrittenIsAnError) {
  const std::string dir = fresh_dir("output_full");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("heavy_light")}).status, 0);
  const std::string p = profiles_in(dir).at(0);
  for (const std::string& cmd : {"report " + p, "report --format json " + p, "diff " + p + " " + p,
                                 "export --format folded " + p}) {
    RunResult r = run({"/bin/sh", "-c", std::string(OMPROF_BIN) + " " + cmd + " > /dev/full"});
    EXPECT_NE(r.status, 0) << cmd;
    EXPECT_NE(r.err.find("cannot write the output: No space left on device"), std::string::npos)
        << cmd << ": " << r.err;
  }
}

// A symlink planted where the old code put its temporary file (OUT.tmp<pid>: the shell's pid,
// which exec keeps) was followed and its target overwritten; the temporary file is now made
// with mkstemp, so the target stays as it was.
TEST(Viewer, OutputNeverFollowsAPlantedSymlink) {
  const std::string dir = fresh_dir("planted_symlink");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("heavy_light")}).status, 0);
  const std::string p = profiles_in(dir).at(0);
  for (const std::string cmd : {"export --format folded", "view"}) {
    const std::string target = dir + "/victim", out = dir + "/out";
    { std::ofstream(target) << "precious\n"; }
    RunResult r = run({"/bin/sh", "-c",
                       "ln -s " + target + " " + out + ".tmp$$ && exec " + OMPROF_BIN + " " + cmd +
                           " -o " + out + " " + p});
    EXPECT_EQ(r.status, 0) << cmd << ": " << r.err;
    EXPECT_EQ(slurp(target), "precious\n") << cmd;
    EXPECT_FALSE(slurp(out).empty()) << cmd;
    run({"/bin/sh", "-c", "rm -f " + out + "*"});
  }
}

// Names that attack what shows them (tests/programs/hostile_names.c). The terminal gets no
// control character (the escape sequences are shown as \x1B...), a spreadsheet gets no formula
// (the cell is prefixed with a quote mark), and the HTML page's data block holds no '<', so a
// region named "<!--<script>" can neither end nor confuse it (it swallowed the rest of the
// page).
TEST(Viewer, HostileNamesAreShownAsText) {
  const std::string dir = fresh_dir("hostile_names");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("hostile_names")}).status, 0);
  const std::string p = profiles_in(dir).at(0);

  RunResult text = run({OMPROF_BIN, "report", p});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.out.find('\x07'), std::string::npos);
  EXPECT_NE(text.out.find("esc\\x1B]0;title\\x07\\x1B[31mred"), std::string::npos) << text.out;

  RunResult csv = run({OMPROF_BIN, "report", "--format", "csv", "--flat", p});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_NE(csv.out.find(",'=HYPERLINK(1)"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find(",=HYPERLINK"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find("\n=HYPERLINK"), std::string::npos) << csv.out;

  ASSERT_EQ(run({OMPROF_BIN, "view", p, "-o", dir + "/v.html"}).status, 0);
  const std::string data = page_data(slurp(dir + "/v.html"));
  ASSERT_FALSE(data.empty());
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_NE(nlohmann::json::parse(data).dump().find("<!--<script>"), std::string::npos);
}

// A region name that is not UTF-8 (tests/programs/hostile_names.c: Latin-1 "Gr\xf6\xdfe"): every
// command that writes JSON writes it, with U+FFFD for each invalid byte. The timeline, the
// Perfetto export and the live view aborted on it (nlohmann::json's dump throws on such bytes).
TEST(Viewer, NamesThatAreNotUtf8AreWrittenAsJson) {
  const std::string dir = fresh_dir("latin1_names");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("hostile_names")}).status, 0);
  const std::string p = profiles_in(dir).at(0);
  const std::string replaced =
      "Gr\xef\xbf\xbd\xef\xbf\xbd"
      "e";  // U+FFFD twice, in UTF-8
  const std::vector<std::vector<std::string>> commands = {
      {"report", "--json", p},
      {"timeline", "--format", "json", p},
      {"export", "--format", "perfetto", "-o", dir + "/trace.json", p},
      {"export", "--format", "speedscope", "-o", dir + "/speedscope.json", p},
      {"top", "--once", "--format", "json", dir},
      {"advise", "--format", "json", p}};
  for (const std::vector<std::string>& cmd : commands) {
    SCOPED_TRACE(cmd[0] + " " + cmd[1] + " " + cmd[2]);
    std::vector<std::string> argv = {OMPROF_BIN};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    const RunResult r = run(argv);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string out = cmd[0] == "export" ? slurp(cmd[4]) : r.out;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(out)) << out.substr(0, 300);
    // (The aggregated speedscope export and the advice name no explicit region.)
    if (cmd[0] != "advise" && cmd[2] != "speedscope") {
      EXPECT_NE(out.find(replaced), std::string::npos) << out.substr(0, 300);
    }
  }
}

// A FIFO planted where the profile's program was: libdwfl's open of it blocked every
// subcommand for ever. Only regular files are opened; the report names the problem.
TEST(Viewer, AMappingPathThatIsAFifoIsNotOpened) {
  const std::string dir = fresh_dir("fifo_mapping");
  const std::string copy = dir + "/prog";
  ASSERT_EQ(run({"/bin/cp", program("heavy_light"), copy}).status, 0);
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", copy}).status, 0);
  const std::string p = profiles_in(dir).at(0);
  ASSERT_EQ(::unlink(copy.c_str()), 0);
  ASSERT_EQ(mkfifo(copy.c_str(), 0600), 0);
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"report", p}, {"export", "--format", "folded", p}}) {
    std::vector<std::string> argv = {"/usr/bin/timeout", "30", OMPROF_BIN};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    RunResult r = run(argv);
    EXPECT_EQ(r.status, 0) << cmd[0] << ": " << r.err;  // 124: timed out
  }
  RunResult r = run({OMPROF_BIN, "report", p});
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out << r.err;
}

// Regular expressions over a 32 KB function name, and patterns that backtrack catastrophically:
// std::regex overflowed the stack (SIGSEGV) or ran for minutes; RE2 matches in linear time.
TEST(Viewer, RegularExpressionsOnHugeNamesFinish) {
  const std::string dir = fresh_dir("long_name");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("long_name")}).status, 0);
  const std::string p = profiles_in(dir).at(0);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--focus", "(a|aa)+$"},
                                               {"--focus", "a*a*a*a*a*a*b"},
                                               {"--ignore", "(a+)+b"},
                                               {"--callers", "^a+$"}}) {
    std::vector<std::string> argv = {"/usr/bin/timeout", "60", OMPROF_BIN, "report"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(p);
    RunResult r = run(argv);
    EXPECT_EQ(r.status, 0) << args[0] << " " << args[1] << ": " << r.err;
  }
  RunResult bad = run({OMPROF_BIN, "report", "--focus", "(", p});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("not a valid regular expression"), std::string::npos) << bad.err;
}

// 20,000 nested explicit regions: the page shows the 2,000 of largest inclusive time with their
// enclosing regions and one row saying how many more there are (every region was a row: a
// million made a 390 MB page and took 6 GB); the text report still lists them all.
TEST(Viewer, ThePageBoundsItsRegionRowsAndSaysWhatItCut) {
  const std::string dir = fresh_dir("regions_nested");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("regions_nested"), "20000"}).status,
            0);
  const std::string p = profiles_in(dir).at(0);
  ASSERT_EQ(run({OMPROF_BIN, "view", p, "-o", dir + "/v.html"}).status, 0);
  const std::string html = slurp(dir + "/v.html");
  const std::string data = page_data(html);
  ASSERT_FALSE(data.empty());
  const auto rows = nlohmann::json::parse(data).at("regions");
  ASSERT_EQ(rows.size(), 2001u + 1u);  // <no region>, 2,000 regions, the note
  EXPECT_NE(rows.back().at("name").get<std::string>().find("<18000 more regions"),
            std::string::npos)
      << rows.back().dump();
  EXPECT_LT(html.size(), 4u << 20);
  RunResult text = run({OMPROF_BIN, "report", "--regions", "--format", "csv", p});
  ASSERT_EQ(text.status, 0);
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 1 + 1 + 20000);  // header, root
}

TEST(Hostile, APlainRunGivesNoCoverageWarning) {
  std::string dir = fresh_dir("hostile_plain");
  RunResult r = run_hostile("plain", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  const std::string rep = report_of(dir);
  EXPECT_TRUE(contains(rep, "Coverage:  100.0%")) << rep;
  // No warning but the busy machine's, which says how the machine was (other tests run beside).
  std::istringstream lines(rep);
  for (std::string line; std::getline(lines, line);)
    if (contains(line, "WARNING")) {
      EXPECT_TRUE(contains(line, "the machine was busy")) << line;
    }
}

// A program that blocks the profiling signal for its life gets no samples: said on stderr and
// in the report, with the cause, instead of an empty profile and no word.
TEST(Hostile, BlockedProfilingSignalIsReported) {
  std::string dir = fresh_dir("hostile_blocked");
  RunResult r = run_hostile("block-signals", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hostile block-signals done\n");
  EXPECT_TRUE(contains(r.err, "warning:")) << r.err;
  EXPECT_TRUE(contains(r.err, "profiling signal was blocked in 1 thread")) << r.err;
  // The thread's clock is armed before main blocks the signal, so a sample or two may land in
  // the start-up; everything after (the 0.3 s of busy()) must be reported lost.
  const std::string rep = report_of(dir);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(rep, m, std::regex(R"(WARNING:\s+([0-9.]+) s of ([0-9.]+) s)")))
      << rep;
  EXPECT_GE(std::stod(m[1]), 0.3 - 2 * 0.005) << rep;  // two periods at the default 200 Hz
  EXPECT_LE(std::stod(m[1]), std::stod(m[2])) << rep;
  EXPECT_TRUE(contains(rep, "profiling signal was blocked")) << rep;
}

// --clock task in a program that closes every descriptor above 2: the task clock goes with it.
TEST(Hostile, ClosedTaskClockDescriptorIsReported) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  std::string dir = fresh_dir("hostile_close_fds");
  RunResult r = run_hostile("close-fds", dir, {"--clock", "task"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hostile close-fds done\n");
  EXPECT_TRUE(contains(r.err, "closed the task-clock descriptor of 1 thread")) << r.err;
  EXPECT_TRUE(contains(report_of(dir), "closed the task-clock descriptor")) << report_of(dir);
}

// A program that closes every descriptor and then passes data through 32 pipes, which get the
// numbers omprof's descriptors had: nothing of omprof's may read or write them. libunwind's
// address-validation pipe did (before, at 3 and 4: a word lost within 100 iterations); with
// --counters, the handler reads each thread's counter group, whose number a pipe now has (it
// checks the descriptor's inode first). The cpu clock keeps sampling (a POSIX timer has no
// descriptor to close), asked for 1 kHz.
TEST(Hostile, NothingOfOmprofTouchesThePipesOfAProgramThatClosedEveryDescriptor) {
  const std::vector<std::vector<std::string>> runs = {
      {}, {"--counters", "context-switches,page-faults"}, {"--counters", "task-clock:1000000,cs"}};
  for (const auto& extra : runs) {
    SCOPED_TRACE(extra.empty() ? "no counters" : extra[1]);
    if (!extra.empty() && !task_clock_usable()) continue;  // perf_event_open not permitted
    std::string dir = fresh_dir("hostile_close_fds_pipe");
    std::vector<std::string> options = {"--clock", "cpu", "--rate", "1000"};
    options.insert(options.end(), extra.begin(), extra.end());
    RunResult r = run_hostile("close-fds-pipe", dir, options);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "hostile close-fds-pipe done\n");
    format::Profile p = only_profile(dir);
    EXPECT_EQ(p.header.counter_event_size(), extra.empty() ? 0 : 2);
    uint64_t samples = 0;
    for (const auto& [index, t] : p.threads)
      for (const auto& s : t.sample()) samples += s.count();
    // The cpu clock fires at most once a kernel tick: 0.3 s is 30 samples at HZ=100.
    EXPECT_GT(samples, 20u) << "the program was sampled meanwhile";
  }
}

// A program that holds every descriptor at exit still gets its whole profile (a descriptor
// kept in reserve), with its command line.
TEST(Hostile, ExhaustedDescriptorsStillGiveTheWholeProfile) {
  std::string dir = fresh_dir("hostile_exhaust_fds");
  RunResult r = run_hostile("exhaust-fds", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hostile exhaust-fds done\n");
  EXPECT_FALSE(contains(r.err, "Too many open files")) << r.err;
  format::Profile p = only_profile(dir);
  ASSERT_EQ(p.header.argv_size(), 2);
  EXPECT_EQ(p.header.argv(1), "exhaust-fds");
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  EXPECT_NEAR(double(total_ns(m, "busy")), 0.3e9, 0.3e9 * sampling_tolerance(1.0, 60) + 10e6);
}

TEST(Hostile, StaticProgramIsNamedAsTheCause) {
  std::string dir = fresh_dir("hostile_static");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("hostile_static")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hostile plain done\n");
  EXPECT_TRUE(contains(r.err, "no profile written")) << r.err;
  EXPECT_TRUE(contains(r.err, "statically linked")) << r.err;
  EXPECT_FALSE(contains(r.err, "_exit")) << r.err;
}

// A set-user-ID program whose owner is not the caller runs in secure-execution mode, where the
// loader ignores LD_PRELOAD. Making one needs root.
TEST(Hostile, SetuidProgramIsNamedAsTheCause) {
  const passwd* nobody = getpwnam("nobody");
  if (geteuid() != 0 || !nobody) GTEST_SKIP() << "needs root and a 'nobody' user";
  std::string dir = fresh_dir("hostile_setuid");
  const std::string copy = dir + "/hostile_setuid";
  {
    std::ifstream in(program("hostile"), std::ios::binary);
    std::ofstream out(copy, std::ios::binary);
    out << in.rdbuf();
  }
  ASSERT_EQ(chown(copy.c_str(), nobody->pw_uid, 0), 0);
  ASSERT_EQ(chmod(copy.c_str(), 04755), 0);
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", copy});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hostile plain done\n");
  EXPECT_TRUE(contains(r.err, "set-user-ID")) << r.err;
}

}  // namespace
}  // namespace omprof::test
