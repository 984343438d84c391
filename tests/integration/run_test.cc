// `omprof run` on ordinary programs: attribution ground truth, transparency (output, exit
// status, signals) and error handling.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "harness.h"
#include "proto/format.h"
#include "proto/journal_reader.h"
#include "proto/options.h"
#include "viewer/symbolize.h"

namespace omprof::test {
namespace {

TEST(Run, HeavyLightSharesMatchDesign) {
  std::string dir = fresh_dir("heavy_light");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("heavy_light")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "heavy_light done\n");
  EXPECT_NE(r.err.find("omprof: profile " + dir), std::string::npos) << r.err;
  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  ASSERT_GT(m.total_samples, 200u);
  // Inclusive shares: what the program was designed to spend in each (the clock reads inside
  // are part of it; their self share depends on the kernel).
  const double heavy = double(total_ns(m, "heavy")) / double(m.total_weight_ns);
  const double light = double(total_ns(m, "light")) / double(m.total_weight_ns);
  EXPECT_NEAR(heavy, 0.70, 0.08);
  EXPECT_NEAR(light, 0.30, 0.08);
  // Caller attribution: both are called from main.
  EXPECT_NEAR(double(total_ns(m, "main")) / double(m.total_weight_ns), 1.0, 0.05);
}

TEST(Run, EveryThreadAppearsWithItsShare) {
  std::string dir = fresh_dir("threads4");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, program("threads4")});  // no "--"
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  std::map<uint32_t, uint64_t> per_thread;
  uint64_t worker_total = 0;
  for (const auto& s : m.samples)
    if (has_frame(s.stack, "worker")) {
      per_thread[s.thread] += s.weight_ns;
      worker_total += s.weight_ns;
    }
  ASSERT_EQ(per_thread.size(), 4u);
  std::vector<double> shares;
  for (const auto& [t, ns] : per_thread) {
    shares.push_back(double(ns) / double(worker_total));
    // Sampled time agrees with the thread's measured CPU time.
    EXPECT_NEAR(double(ns), double(p.threads.at(t).cpu_time_ns()),
                0.15 * double(p.threads.at(t).cpu_time_ns()) + 20e6);
  }
  std::sort(shares.begin(), shares.end());
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(shares[i], 0.1 * double(i + 1), 0.04) << "thread rank " << i;
}

TEST(Run, ExitStatusAndOutputAreThePrograms) {
  std::string dir = fresh_dir("exit_status");
  RunResult plain = run({program("exit_status"), "3"});
  RunResult profiled = run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status"), "3"});
  EXPECT_EQ(plain.status, 3);
  EXPECT_EQ(profiled.status, 3);
  EXPECT_EQ(profiled.out, plain.out);
  EXPECT_EQ(profiled.out.size(), plain.out.size());

  RunResult killed = run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status"), "term"});
  EXPECT_EQ(killed.status, 143);
  EXPECT_EQ(killed.out, plain.out);
  EXPECT_NE(killed.err.find("killed by signal 15"), std::string::npos) << killed.err;
}

// A thread a library's constructor starts exists before omprof's collector (the loader runs a
// program's libraries' constructors before the preloaded collector's): omprof never sees it
// start and cannot profile it, so it says so (Trailer.threads_before_start, one line under
// Lost) instead of a profile that silently has one thread fewer. The program runs as alone.
TEST(Run, AThreadStartedBeforeTheCollectorIsToldNotProfiled) {
  const std::string dir = fresh_dir("early_thread");
  const RunResult alone = run({program("early_thread")});
  const RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("early_thread")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, alone.out);
  EXPECT_EQ(r.out, "early thread joined: 1\n");
  const format::Profile p = only_profile(dir);
  EXPECT_EQ(p.trailer.threads_before_start(), 1u);
  EXPECT_EQ(p.threads.size(), 1u) << "only the main thread is profiled";
  const RunResult rep = run({OMPROF_BIN, "report", dir});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("1 thread(s) started before omprof"), std::string::npos) << rep.out;
  // A program without such a thread has none.
  const std::string plain = fresh_dir("early_thread_none");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", plain, "--", program("heavy_light"), "5", "5"}).status,
            0);
  EXPECT_EQ(only_profile(plain).trailer.threads_before_start(), 0u);
}

TEST(Run, ApplicationSigprofHandlerStillGetsItsSignals) {
  std::string dir = fresh_dir("own_sigprof");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("own_sigprof")});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("raised=10 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("same_handler=1"), std::string::npos) << r.out;
  format::Profile p = only_profile(dir);
  EXPECT_GT(p.trailer.forwarded_signals(), 10u);
  uint64_t samples = 0;
  for (const auto& [i, t] : p.threads)
    for (const auto& s : t.sample()) samples += s.count();
  EXPECT_GT(samples, 20u) << "omprof kept sampling";
}

// A program raising SIGPROF every 100 us: a standard signal does not queue, so the task
// clock's overflow signal is now and then merged into the program's, and the clock stopped at
// that overflow for good (CI: a run with no sample at all; 45-696 samples of about 2,000 at
// 1 kHz before the fix, 1,910-1,932 after). The program's signal now revives the clock.
TEST(Run, SamplingSurvivesAProgramRaisingSigprofOften) {
  std::string dir = fresh_dir("own_sigprof_raise");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("own_sigprof"), "raise"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("raised="), std::string::npos) << r.out;
  const format::Profile p = only_profile(dir);
  uint64_t samples = 0, cpu_ns = 0;
  for (const auto& [i, t] : p.threads) {
    for (const auto& s : t.sample()) samples += s.count();
    cpu_ns += t.cpu_time_ns();
  }
  const double expected = double(cpu_ns) * 1e-9 * double(p.header.rate_hz());
  std::printf("%s%llu samples for %.0f expected\n", r.out.c_str(),
              static_cast<unsigned long long>(samples), expected);
  EXPECT_GT(double(samples), 0.8 * expected);
}

TEST(Run, WallClockSampling) {
  // Wall-clock timers sample a thread whether it runs or waits: its sampled time is its elapsed
  // time (unlike CPU time, which is what heavy_light's shares are designed in).
  std::string dir = fresh_dir("wall");
  RunResult r = run({OMPROF_BIN, "run", "--clock", "wall", "--rate", "500", "-o", dir, "--",
                     program("heavy_light")});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  EXPECT_EQ(p.header.clock(), v1::CLOCK_WALL);
  EXPECT_EQ(p.header.rate_hz(), 500u);
  EXPECT_EQ(p.header.period_ns(), 2000000u);
  uint64_t sampled = 0;
  for (const auto& s : p.threads.at(0).sample()) sampled += s.weight_ns();
  EXPECT_NEAR(double(sampled), double(p.header.duration_ns()),
              0.1 * double(p.header.duration_ns()));
  EXPECT_GE(double(sampled), 0.95 * double(p.threads.at(0).cpu_time_ns()));
}

TEST(Run, MissingOrNonExecutableProgram) {
  RunResult missing = run({OMPROF_BIN, "run", "--", "/nonexistent/program"});
  EXPECT_EQ(missing.status, 127);
  EXPECT_EQ(missing.err,
            "omprof: cannot execute '/nonexistent/program': No such file or directory\n");
  const std::string text = fresh_dir("not_exec") + "/data.txt";
  std::ofstream(text) << "not a program\n";
  chmod(text.c_str(), 0644);
  RunResult not_exec = run({OMPROF_BIN, "run", "--", text});
  EXPECT_EQ(not_exec.status, 126);
  EXPECT_EQ(not_exec.err, "omprof: cannot execute '" + text + "': Permission denied\n");
  // Executable bits but not a program: the exec itself fails, reported the same way.
  chmod(text.c_str(), 0755);
  RunResult bad_format = run({OMPROF_BIN, "run", "--", text});
  EXPECT_EQ(bad_format.status, 126);
  EXPECT_EQ(bad_format.err, "omprof: cannot execute '" + text + "': Exec format error\n");
  RunResult not_in_path = run({OMPROF_BIN, "run", "no-such-command-omprof"});
  EXPECT_EQ(not_in_path.status, 127);
}

TEST(Run, BadOptionsAreUsageErrors) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"run", "--rate", "0", "--", "/bin/true"},
        {"run", "--rate", "20000", "--", "/bin/true"},
        {"run", "--clock", "sundial", "--", "/bin/true"},
        {"run", "--signal", "SIGKILL", "--", "/bin/true"},
        {"run", "--max-depth", "2", "--", "/bin/true"},
        {"run", "--rat", "100", "/bin/true"},
        {"run", "--typo", "--", "/bin/true"},
        {"report"},
        {"frobnicate"}}) {
    args.insert(args.begin(), OMPROF_BIN);
    RunResult r = run(args);
    EXPECT_EQ(r.status, 2) << args[1] << " " << args[2];
    EXPECT_EQ(r.err.rfind("omprof: ", 0), 0u) << r.err;
  }
}

// Values that once slipped through or were misnamed (the second reliability probe): each is one
// line saying what is wrong, and status 2, before anything runs.
TEST(Run, HostileOptionValuesAreNamed) {
  const std::string p = TEST_SOURCE_DIR "/data/regions_app.omprof";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"report", "--top", "-1", p}, "--top: '-1' is not a whole number of rows"},
      {{"diff", "--top", "-1", p, p}, "--top: '-1' is not a whole number of rows"},
      {{"report", "--min-percent", "nan", p}, "--min-percent: 'nan' is not a number from 0 to 100"},
      {{"run", "--rate", "-5", "--", "/bin/true"}, "--rate: '-5' is not a whole number from 1"},
      {{"run", "-o", "/proc", "--", "/bin/true"}, "cannot write to output directory '/proc'"},
      {{"run", "--", ""}, "the program's name is an empty string"}};
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), OMPROF_BIN);
    RunResult r = run(argv);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1];
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  // A thread the profile does not have is an error, not an empty report with status 0.
  RunResult thread = run({OMPROF_BIN, "report", "--thread", "7", p});
  EXPECT_EQ(thread.status, 1);
  EXPECT_NE(thread.err.find("has no such thread (its threads: 0, 1)"), std::string::npos)
      << thread.err;
  RunResult tmp = run({OMPROF_BIN, "run", "--", "/bin/true"}, {{"TMPDIR", "/nonexistent"}});
  EXPECT_EQ(tmp.status, 2);
  EXPECT_NE(tmp.err.find("cannot create a temporary directory in '/nonexistent' (TMPDIR)"),
            std::string::npos)
      << tmp.err;
}

TEST(Run, RelativeOutputDirectorySurvivesChdir) {
  const std::string dir = fresh_dir("chdir");
  const std::string parent = dir.substr(0, dir.rfind('/'));
  RunResult r = run({"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" run -o chdir -- \"$3\"", "sh",
                     parent, OMPROF_BIN, program("chdir_work")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(profiles_in(dir).size(), 1u) << r.err;
}

// The collector preloaded by hand with a relative OMPROF_OUTPUT, into a program that chdir()s:
// the profile goes where the journal went, and no journal is left behind (the profile was
// written relative to the new directory, or not at all).
TEST(Run, APreloadedProgramThatChdirsKeepsItsProfileTogether) {
  const std::string dir = fresh_dir("chdir_preload");
  const std::string parent = dir.substr(0, dir.rfind('/'));
  RunResult r = run({"/bin/sh", "-c", "cd \"$1\" && OMPROF_OUTPUT=chdir_preload exec \"$2\"", "sh",
                     parent, program("chdir_work")},
                    {{"LD_PRELOAD", OMPROF_LIB}});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> files = profiles_in(dir);
  ASSERT_EQ(files.size(), 1u) << r.err;
  EXPECT_FALSE(format::is_journal_path(files[0])) << files[0];
}

// A program whose name has 250 characters: its profile's name is cut to fit NAME_MAX (the
// profile was lost to ENAMETOOLONG).
TEST(Run, AProgramWithA250CharacterNameGetsItsProfile) {
  const std::string dir = fresh_dir("long_program_name");
  const std::string copy = dir + "/" + std::string(250, 'p');
  ASSERT_EQ(run({"/bin/cp", program("heavy_light"), copy}).status, 0);
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", copy});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> files = profiles_in(dir);
  ASSERT_EQ(files.size(), 1u) << r.err;
  EXPECT_EQ(files[0].rfind(dir + "/" + std::string(160, 'p') + ".", 0), 0u) << files[0];
  EXPECT_EQ(run({OMPROF_BIN, "report", files[0]}).status, 0);
}

// A shell script that runs the real program: without --children only the shell is profiled
// (an empty profile, and no hint); the run now says where the CPU time went and what to use.
TEST(Run, AProgramStartedByAScriptIsNamedAsUnprofiled) {
  const std::string dir = fresh_dir("script_child");
  const std::string script = dir + "/run.sh";
  std::ofstream(script) << "#!/bin/sh\n" << program("heavy_light") << "\n";
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", script});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("were not profiled; omprof run --children profiles them too"),
            std::string::npos)
      << r.err;
  RunResult plain = run({OMPROF_BIN, "run", "-o", dir, "--", program("heavy_light")});
  EXPECT_EQ(plain.err.find("--children"), std::string::npos) << plain.err;
}

TEST(Run, UnwritableOutputDirectory) {
  RunResult r = run({OMPROF_BIN, "run", "-o", "/etc/hostname/sub", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("omprof: cannot create output directory '/etc/hostname/sub'"),
            std::string::npos)
      << r.err;
}

TEST(Run, HelpAndVersion) {
  EXPECT_EQ(run({OMPROF_BIN, "--help"}).status, 0);
  EXPECT_EQ(run({OMPROF_BIN, "run", "--help"}).status, 0);
  EXPECT_EQ(run({OMPROF_BIN, "report", "--help"}).status, 0);
  RunResult v = run({OMPROF_BIN, "--version"});
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("omprof ", 0), 0u);
}

// --- Bad profile files ---------------------------------------------------------------------

std::string write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string good_profile_bytes() {
  std::string dir = fresh_dir("bad_files_source");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status")});
  EXPECT_EQ(r.status, 0);
  std::ifstream in(profiles_in(dir).at(0), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_rejected(const std::string& path, const std::string& reason) {
  RunResult r = run({OMPROF_BIN, "report", path});
  EXPECT_EQ(r.status, 1) << path;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("omprof: " + path + ": ", 0), 0u) << r.err;
}

TEST(Report, RejectsBadFilesWithOneLine) {
  const std::string good = good_profile_bytes();
  const std::string dir = fresh_dir("bad_files");
  ASSERT_GT(good.size(), 100u);
  expect_rejected(write_file(dir + "/empty.omprof", ""), "empty file");
  expect_rejected(write_file(dir + "/foreign.omprof", "#!/bin/sh\necho hello\n"),
                  "not an omprof profile");
  expect_rejected(write_file(dir + "/half.omprof", good.substr(0, good.size() / 2)), "truncated");
  expect_rejected(write_file(dir + "/notrailer.omprof", good.substr(0, good.size() - 3)),
                  "truncated");
  expect_rejected(dir + "/missing.omprof", "cannot open");
  // Flip bytes all over the body: every result is a clean rejection (one line: no library's
  // log lines before it) or a valid read, never a crash.
  for (size_t pos = 9; pos < good.size(); pos += good.size() / 40) {
    std::string bad = good;
    bad[pos] = char(bad[pos] ^ 0x5a);
    RunResult r = run({OMPROF_BIN, "report", write_file(dir + "/flip.omprof", bad)});
    EXPECT_TRUE(r.status == 0 || (r.status == 1 && r.err.find("omprof: ") == 0 &&
                                  std::count(r.err.begin(), r.err.end(), '\n') == 1))
        << pos << r.err;
  }
}

// The file with each Mapping record changed by `edit`, re-framed (lengths and all).
std::string with_mappings_edited(const std::string& file,
                                 const std::function<void(v1::Mapping&)>& edit) {
  const std::string magic(format::kMagic);
  std::string out = magic;
  size_t pos = magic.size();
  while (pos < file.size()) {
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t c = uint8_t(file[pos++]);
      len |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    v1::Record rec;
    EXPECT_TRUE(rec.ParseFromArray(file.data() + pos, int(len)));
    pos += len;
    if (rec.kind_case() == v1::Record::kMapping) edit(*rec.mutable_mapping());
    const std::string body = rec.SerializeAsString();
    for (uint64_t v = body.size();; v >>= 7) {
      out += char((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      if (v <= 0x7f) break;
    }
    out += body;
  }
  return out;
}

// A mapping whose build-id names a string the table does not have (a flipped byte did that,
// 1 run in 20 of the test above, and the symbolizer threw std::out_of_range: a crash).
TEST(Report, AMappingsMissingBuildIdStringIsRejected) {
  const std::string good = good_profile_bytes();
  const std::string dir = fresh_dir("bad_build_id");
  const std::string bad =
      with_mappings_edited(good, [](v1::Mapping& m) { m.set_build_id(1000000); });
  expect_rejected(write_file(dir + "/build_id.omprof", bad), "mapping table");
  // The same edit that keeps the index valid reads (the framing above is right).
  const std::string same = with_mappings_edited(good, [](v1::Mapping&) {});
  EXPECT_EQ(run({OMPROF_BIN, "report", write_file(dir + "/same.omprof", same)}).status, 0);
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

TEST(Run, ForkChildIsLeftAlone) {
  std::string dir = fresh_dir("fork_child");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("fork_child")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "fork_child done 0\n");
  format::Profile p = only_profile(dir);  // exactly one: the child wrote nothing
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  EXPECT_EQ(total_ns(m, "child_work"), 0u);
  EXPECT_NEAR(double(total_ns(m, "parent_work")), 0.3e9, 0.06e9);
}

TEST(Run, DlclosedLibraryIsStillSymbolized) {
  std::string dir = fresh_dir("dlopen");
  RunResult r =
      run({OMPROF_BIN, "run", "-o", dir, "--", program("dlopen_user"), program("libdlwork.so")});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  EXPECT_NEAR(double(total_ns(m, "dl_work")), 0.3e9, 0.06e9);
  bool unloaded = false;
  for (const auto& map : p.mappings)
    if (p.str(map.filename()).find("libdlwork.so") != std::string::npos) unloaded = map.unloaded();
  EXPECT_TRUE(unloaded);
  for (const auto& s : m.samples) {
    if (!s.stack.empty() && s.stack.front().name == "dl_work") {
      EXPECT_NE(s.stack.front().file.str().find("dlwork.c"), std::string::npos);
    }
  }
}

// A library loaded and unloaded twice, named by a path relative to the cwd (issue 7, defect 2:
// this crashed the program at exit when the collector symbolized): the program ends as it
// would, and both loads' samples are symbolized, by the viewer or in the process.
TEST(Run, LibraryLoadedTwiceByARelativePath) {
  for (const bool in_process : {false, true}) {
    SCOPED_TRACE(in_process ? "--symbolize" : "viewer symbolizes");
    std::string dir = fresh_dir(in_process ? "dlopen_twice_in_process" : "dlopen_twice");
    std::string cmd = "cd '" + std::string(TEST_BIN_DIR) + "' && exec '" + OMPROF_BIN + "' run " +
                      (in_process ? "--symbolize " : "") + "-o '" + dir +
                      "' -- ./dlopen_user ./libdlwork.so 2";
    RunResult r = run({"/bin/sh", "-c", cmd});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "dlopen_user done\n");
    format::Profile p = only_profile(dir);
    int loads = 0;
    for (const auto& map : p.mappings) {
      const std::string file = p.str(map.filename());
      if (file.find("libdlwork.so") == std::string::npos) continue;
      ++loads;
      EXPECT_EQ(file, program("libdlwork.so"));
      EXPECT_TRUE(map.unloaded());
    }
    EXPECT_EQ(loads, 2);
    viewer::Model m = viewer::build_model(p, omp::View::kUser);
    EXPECT_NEAR(double(total_ns(m, "dl_work")), 0.3e9, 0.06e9);
  }
}

TEST(Run, DeepStacksAreTruncatedAndCounted) {
  std::string dir = fresh_dir("deep");
  RunResult r =
      run({OMPROF_BIN, "run", "--max-depth", "64", "-o", dir, "--", program("deep_stacks")});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  uint64_t truncated = 0, samples = 0;
  for (const auto& [i, t] : p.threads) {
    truncated += t.truncated_samples();
    for (const auto& s : t.sample()) samples += s.count();
  }
  EXPECT_GT(truncated, samples / 2);
  EXPECT_NE(r.err.find(std::to_string(truncated) + " truncated"), std::string::npos) << r.err;
  viewer::Model m = viewer::build_model(p, omp::View::kMachine);
  EXPECT_GT(double(self_ns(m, "leaf_work")), 0.8 * double(m.total_weight_ns));
  for (const auto& s : m.samples) EXPECT_LE(s.stack.size(), 64u + 8u);  // + inline frames
  RunResult rep = run({OMPROF_BIN, "report", profiles_in(dir)[0]});
  EXPECT_NE(rep.out.find(std::to_string(truncated) + " truncated"), std::string::npos) << rep.out;
}

TEST(Run, SamplesBeyondTheTableAreDroppedAndCounted) {
  std::string dir = fresh_dir("many");
  RunResult r = run(
      {OMPROF_BIN, "run", "--max-contexts", "16", "-o", dir, "--", program("deep_stacks"), "many"});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  const auto& main_thread = p.threads.at(0);
  EXPECT_GT(main_thread.dropped_samples(), 0u);
  // Each sample stands for whole sampling periods (stratified sampling): one or more, or none
  // when it came early, in the period already sampled. The task clock's overflow is timed by an
  // hrtimer while the thread runs, which counts time its CPU clock leaves out on a busy machine
  // (5 of 591 overflows up to 0.26 ms early beside two CPU burners on the 2-vCPU VM).
  const uint64_t dropped = main_thread.dropped_samples();
  EXPECT_GE(main_thread.dropped_weight_ns(), (dropped - dropped / 10) * p.header.period_ns());
  EXPECT_EQ(main_thread.dropped_weight_ns() % p.header.period_ns(), 0u);
  EXPECT_LE(main_thread.sample_size(), 12);
  // Kept plus dropped is all the CPU time.
  uint64_t kept = 0;
  for (const auto& s : main_thread.sample()) kept += s.weight_ns();
  EXPECT_NEAR(double(kept + main_thread.dropped_weight_ns()), double(main_thread.cpu_time_ns()),
              0.1 * double(main_thread.cpu_time_ns()));
  EXPECT_NE(r.err.find(std::to_string(main_thread.dropped_samples()) + " dropped"),
            std::string::npos)
      << r.err;
}

TEST(Run, TimerCreationFailureIsCountedNotFatal) {
  // RLIMIT_SIGPENDING bounds POSIX timers: with a limit of 1, only the main thread gets one.
  std::string dir = fresh_dir("sigpending");
  RunResult r =
      run({"/bin/bash", "-c", "ulimit -i 1 && exec \"$0\" run --clock cpu -o \"$1\" -- \"$2\"",
           OMPROF_BIN, dir, program("threads4")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "threads4 done\n");
  format::Profile p = only_profile(dir);
  EXPECT_GE(p.trailer.timer_create_failures(), 4u);
  uint64_t failed = 0;
  for (const auto& [i, t] : p.threads) failed += t.timer_failed();
  EXPECT_GE(failed, 4u);
  RunResult rep = run({OMPROF_BIN, "report", "--threads", profiles_in(dir)[0]});
  EXPECT_NE(rep.out.find("no-timer(errno 11)"), std::string::npos) << rep.out;
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

TEST(TaskClock, SamplesEveryPeriodAboveTheTickRate) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  std::string dir = fresh_dir("task_heavy_light");
  RunResult r = run({OMPROF_BIN, "run", "--clock", "task", "--rate", "1000", "-o", dir, "--",
                     program("heavy_light")});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  EXPECT_EQ(p.header.clock(), v1::CLOCK_TASK);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  // 1.5 s of CPU at 1 kHz: ~1500 samples (a CPU-time POSIX timer stops at the 250 Hz tick).
  EXPECT_GT(m.total_samples, 1200u);
  EXPECT_NEAR(double(m.total_weight_ns), double(p.threads.at(0).cpu_time_ns()),
              0.03 * double(p.threads.at(0).cpu_time_ns()));
  EXPECT_NEAR(double(total_ns(m, "heavy")) / double(m.total_weight_ns), 0.70, 0.05);
}

// The header says why the clock is the one it is (Header.clock_choice): omprof run's default
// (or why the task clock was not available), a clock asked for, or a collector preloaded
// without omprof run.
TEST(TaskClock, TheHeaderSaysWhyTheClockWasChosen) {
  const std::string chosen = fresh_dir("clock_chosen"), asked = fresh_dir("clock_asked"),
                    preloaded = fresh_dir("clock_preloaded");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", chosen, "--", program("heavy_light")}).status, 0);
  const format::Profile d = only_profile(chosen);
  if (task_clock_usable()) {
    EXPECT_EQ(d.header.clock(), v1::CLOCK_TASK);
    EXPECT_NE(d.header.clock_choice().find("omprof run's default"), std::string::npos)
        << d.header.clock_choice();
  } else {
    EXPECT_NE(d.header.clock_choice().find("the task clock is not available here ("),
              std::string::npos)
        << d.header.clock_choice();
  }
  ASSERT_EQ(
      run({OMPROF_BIN, "run", "--clock", "cpu", "-o", asked, "--", program("heavy_light")}).status,
      0);
  EXPECT_EQ(only_profile(asked).header.clock_choice(), "asked for (--clock cpu)");
  ASSERT_EQ(
      run({program("heavy_light")}, {{"LD_PRELOAD", OMPROF_LIB}, {"OMPROF_OUTPUT", preloaded}})
          .status,
      0);
  const format::Profile pre = only_profile(preloaded);
  EXPECT_EQ(pre.header.clock(), v1::CLOCK_CPU);
  EXPECT_NE(pre.header.clock_choice().find("OMPROF_CLOCK unset"), std::string::npos)
      << pre.header.clock_choice();
  // The report prints it under its Sampling line.
  const RunResult rep = run({OMPROF_BIN, "report", asked});
  EXPECT_NE(rep.out.find("\n           chosen: asked for (--clock cpu)\n"), std::string::npos)
      << rep.out;
}

// OpenMP threads told to sleep at every barrier (OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0)
// keep the task clock where it is permitted: a thread that then switches too often leaves it by
// itself (clock_fallback.h). The cpu clock is not chosen for them up front (it was until this
// test's change): its samples fall on kernel ticks, and a program whose steps last one tick read
// 37% to 100% for a 75% share under it.
TEST(TaskClock, PassiveWaitsKeepTheTaskClock) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const std::map<std::string, std::map<std::string, std::string>> sleepy = {
      {"passive", {{"OMP_WAIT_POLICY", "PASSIVE"}}}, {"blocktime", {{"KMP_BLOCKTIME", "0"}}}};
  for (const auto& [name, env] : sleepy) {
    const std::string dir = fresh_dir("sleepy_" + name);
    const RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("threads4")}, env);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("sampling with --clock cpu"), std::string::npos) << r.err;
    EXPECT_EQ(only_profile(dir).header.clock(), v1::CLOCK_TASK) << name;
  }
}

// A time-step program whose steps last 4 ms of CPU time (one tick of a 250 Hz kernel, four of a
// 1000 Hz one, and 2.5 steps per tick of a 100 Hz one: tick-driven samples see a few fixed
// phases of the step on any of them), run with a passive wait policy: the shares must be the
// ones the program measured, within sampling error.
TEST(TaskClock, StepsOfAWholeTickAreNotAliasedUnderPassiveWaits) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const std::string dir = fresh_dir("passive_tick_steps");
  const RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("periodic"), "4", "300"},
                          {{"OMP_WAIT_POLICY", "passive"}});
  expect_periodic_shares(r, dir);
}

// The task clock costs every context switch (docs/semantics.md, Clocks): a run that switches
// often is told, once, and the profile keeps each thread's count. A CPU-bound run is not told.
TEST(TaskClock, ManyContextSwitchesAreCountedAndNoted) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const std::string dir = fresh_dir("sleeper");
  const RunResult r =
      run({OMPROF_BIN, "run", "--clock", "task", "-o", dir, "--", program("sleeper"), "5000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("the sampled threads switched"), std::string::npos) << r.err;
  const format::Profile p = only_profile(dir);
  EXPECT_GE(p.threads.at(0).context_switches(), 4500u);  // about one per sleep
  const std::string busy = fresh_dir("task_cpu_bound");
  const RunResult b =
      run({OMPROF_BIN, "run", "--clock", "task", "-o", busy, "--", program("heavy_light")});
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(b.err.find("context switch"), std::string::npos) << b.err;
  EXPECT_GT(only_profile(busy).threads.at(0).context_switches(), 0u);  // at least its exit
}

// Threads that switch thousands of times per CPU-second leave the task clock, which pays for
// every switch, for the cpu clock, when omprof chose the task clock itself; a thread that does
// not switch keeps it; so does every thread when the user asked for the task clock. Each
// thread's sampled time is still its CPU time across the move.
TEST(TaskClock, ThreadsThatSwitchOftenMoveToTheCpuClock) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  const double limit = std::stod(options::env::kClockFallbackDefault);
  for (const bool asked : {false, true}) {
    SCOPED_TRACE(asked ? "--clock task" : "default clock");
    const std::string dir = fresh_dir(asked ? "switchy_task" : "switchy");
    std::vector<std::string> argv = {OMPROF_BIN, "run", "-o", dir};
    if (asked) argv.insert(argv.end(), {"--clock", "task"});
    argv.insert(argv.end(), {"--", program("switchy"), "4000", "100"});
    const RunResult r = run(argv);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("switchy done"), std::string::npos) << r.out;
    const format::Profile p = only_profile(dir);
    EXPECT_EQ(p.header.clock(), v1::CLOCK_TASK);
    const viewer::Model m = viewer::build_model(p, omp::View::kUser);
    std::map<uint32_t, uint64_t> sampled;
    for (const auto& s : m.samples) sampled[s.thread] += s.weight_ns;
    int players = 0, moved = 0;
    for (const auto& [i, t] : p.threads) {
      const double cpu_s = double(t.cpu_time_ns()) * 1e-9;
      if (cpu_s < 0.2) continue;  // the main thread only waits
      SCOPED_TRACE("thread " + std::to_string(i));
      const double rate = double(t.context_switches()) / cpu_s;
      if (t.cpu_clock_from_ns() > 0) ++moved;
      // The players switch once per 100 us turn: about 10,000 times per CPU-second.
      if (rate > 1.5 * limit) {
        ++players;
        EXPECT_EQ(t.cpu_clock_from_ns() > 0, !asked) << rate << " switches per CPU-second";
        if (!asked) {
          EXPECT_GT(double(t.switches_per_cpu_s_at_move()), limit);
        }
      }
      if (rate < 0.5 * limit) {
        EXPECT_EQ(t.cpu_clock_from_ns(), 0u) << rate;
      }
      EXPECT_NEAR(double(sampled[i]), double(t.cpu_time_ns()),
                  0.05 * double(t.cpu_time_ns()) + 20e6);
    }
    EXPECT_EQ(players, 2) << "the players did not switch as designed";
    const RunResult rep = run({OMPROF_BIN, "report", dir});
    const bool says_moved = rep.out.find("moved to the cpu clock") != std::string::npos;
    EXPECT_EQ(says_moved, moved > 0) << rep.out;
    EXPECT_EQ(r.err.find("moved from the task clock") != std::string::npos, moved > 0) << r.err;
  }
}

TEST(TaskClock, EveryThreadsSampledTimeIsItsCpuTime) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event task-clock not available";
  std::string dir = fresh_dir("task_threads4");
  RunResult r = run({OMPROF_BIN, "run", "--clock", "task", "-o", dir, "--", program("threads4")});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  std::map<uint32_t, uint64_t> sampled;
  for (const auto& s : m.samples) sampled[s.thread] += s.weight_ns;
  int workers = 0;
  for (const auto& [i, t] : p.threads) {
    if (t.cpu_time_ns() < 50'000'000) continue;  // the main thread only waits
    ++workers;
    EXPECT_NEAR(double(sampled[i]), double(t.cpu_time_ns()), 0.05 * double(t.cpu_time_ns()) + 10e6)
        << "thread " << i;
  }
  EXPECT_EQ(workers, 4);
}

TEST(TaskClock, UnavailableOrBadClockIsAUsageError) {
  RunResult r = run({OMPROF_BIN, "run", "--clock", "sundial", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

std::string copy_program(const std::string& from, const std::string& dir, const std::string& name) {
  const std::string to = dir + "/" + name;
  EXPECT_EQ(run({"/bin/cp", program(from), to}).status, 0);
  return to;
}

// The viewer symbolizes from the files on disk, verified by build-id: a binary rebuilt after
// the run gives a note and unnamed addresses, never the new binary's names.
TEST(Symbols, ABinaryChangedSinceTheRunIsFlaggedAndNotMisnamed) {
  const std::string dir = fresh_dir("rebuilt");
  const std::string app = copy_program("heavy_light", dir, "app");
  ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", app}).status, 0);
  const std::string profile = profiles_in(dir).at(0);
  RunResult before = run({OMPROF_BIN, "report", "--flat", profile});
  EXPECT_NE(before.out.find("heavy"), std::string::npos) << before.out;
  copy_program("periodic", dir, "app");  // "rebuilt": another program at the same path
  RunResult after = run({OMPROF_BIN, "report", "--flat", profile});
  ASSERT_EQ(after.status, 0) << after.err;
  EXPECT_NE(after.out.find(app + " has changed since the run"), std::string::npos) << after.out;
  for (const char* wrong : {"phase_a", "phase_b", "heavy", "light"})
    EXPECT_EQ(after.out.find(wrong), std::string::npos) << wrong << " in\n" << after.out;
}

// For binaries that will not exist when the profile is read.
TEST(Symbols, SymbolizeInTheProcessKeepsNamesAfterTheBinaryIsGone) {
  const std::string dir = fresh_dir("symbolize_in_process");
  const std::string app = copy_program("heavy_light", dir, "app");
  ASSERT_EQ(run({OMPROF_BIN, "run", "--symbolize", "-o", dir, "--", app}).status, 0);
  ASSERT_EQ(unlink(app.c_str()), 0);
  format::Profile p = only_profile(dir);
  EXPECT_FALSE(p.header.symbolize_offline());
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  EXPECT_GT(total_ns(m, "heavy"), 0u);
  EXPECT_TRUE(p.notes.empty());
}

// A directory of profiles of one binary reads each module once.
TEST(Symbols, ManyProfilesOfOneBinaryOpenEachModuleOnce) {
  const std::string dir = fresh_dir("many_profiles");
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("periodic"), "2", "25"}).status, 0);
  const std::vector<std::string> files = profiles_in(dir);
  ASSERT_EQ(files.size(), 6u);
  // The modules that need symbols, over all the profiles (each profile's samples touch a
  // slightly different set: libc in one, the loader in another).
  std::set<std::string> needed;
  for (const auto& f : files) {
    format::Profile raw = format::read_profile(f);
    for (const auto& loc : raw.locations) {
      const v1::Mapping* m = raw.mapping(loc.mapping_id());
      if (loc.line_size() || !m || raw.str(m->filename()).rfind('/', 0) != 0) continue;
      needed.insert(raw.str(m->build_id()).empty() ? raw.str(m->filename())
                                                   : raw.str(m->build_id()));
    }
  }
  ASSERT_FALSE(needed.empty());
  viewer::SymbolCache all;
  for (const auto& f : files) {
    format::Profile p = viewer::load_profile(f, all);
    viewer::Model m = viewer::build_model(p, omp::View::kUser);
    EXPECT_GT(total_ns(m, "main"), 0u) << f;
  }
  EXPECT_EQ(all.modules_opened(), needed.size());
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

// Without --children, the program and what it starts see the environment they would see
// without omprof: no preloaded collector in the child.
TEST(Children, AreLeftAloneWithoutTheOption) {
  const std::string dir = fresh_dir("env_child");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("env_child")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "LD_PRELOAD=(unset)\n0\n");
  EXPECT_EQ(profiles_in(dir).size(), 1u);
  // With it, the child has the collector too.
  const std::string dir2 = fresh_dir("env_child_children");
  RunResult c = run({OMPROF_BIN, "run", "--children", "-o", dir2, "--", program("env_child")});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("libomprof"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("\n0\n"), std::string::npos) << c.out;
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

// A program that overwrites its arguments in place (BOTS marks each option it parsed: "-n" becomes
// "-*"): the profile names the command it was started with, also after a crash (the journal).
TEST(Run, AProgramThatRewritesItsArgumentsKeepsItsCommandLine) {
  const std::string dir = fresh_dir("rewrites_argv");
  RunResult r =
      run({OMPROF_BIN, "run", "-o", dir, "--", program("rewrites_argv"), "-n", "30", "-c"});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  ASSERT_EQ(p.header.argv_size(), 4);
  EXPECT_EQ(p.header.argv(1), "-n");
  EXPECT_EQ(p.header.argv(3), "-c");
}

// Arguments are bytes: a Latin-1 file name, a space, a newline. The profile stays readable and
// the report's command line shows each argument unambiguously.
TEST(Run, ArgumentsThatAreNotUtf8KeepTheProfileReadable) {
  const std::string dir = fresh_dir("latin1_args");
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status"), "0", "caf\xe9.txt",
                     "a b", "x\ny"});
  ASSERT_EQ(r.status, 0) << r.err;
  format::Profile p = only_profile(dir);
  ASSERT_EQ(p.header.argv_size(), 5);
  EXPECT_EQ(p.header.argv(2), "caf\xe9.txt");
  RunResult rep = run({OMPROF_BIN, "report", profiles_in(dir)[0]});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("0 $'caf\\xe9.txt' 'a b' $'x\\ny'\n"), std::string::npos) << rep.out;
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

TEST(Run, OutputDirectoryIsCreatedWithItsParents) {
  const std::string top = fresh_dir("parents");
  ASSERT_EQ(run({"/bin/rm", "-rf", top + "/a"}).status, 0);  // fresh_dir empties only the top
  const std::string dir = top + "/a/b/c";
  RunResult r = run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status"), "0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(profiles_in(dir).size(), 1u);
}

// `omprof report DIR` reads what `omprof run -o DIR` wrote; other non-files get a clear line.
TEST(Report, DirectoriesAndNonFiles) {
  const std::string dir = fresh_dir("report_dir");
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(run({OMPROF_BIN, "run", "-o", dir, "--", program("exit_status"), "0"}).status, 0);
  RunResult r = run({OMPROF_BIN, "report", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  size_t headers = 0;
  for (size_t at = r.out.find("Profile:"); at != std::string::npos;
       at = r.out.find("Profile:", at + 1))
    ++headers;
  EXPECT_EQ(headers, 2u) << r.out;

  const std::string empty = fresh_dir("report_empty_dir");
  RunResult e = run({OMPROF_BIN, "report", empty});
  EXPECT_EQ(e.status, 1);
  EXPECT_NE(e.err.find("no .omprof profiles in this directory"), std::string::npos) << e.err;

  RunResult z = run({OMPROF_BIN, "report", "/dev/zero"});
  EXPECT_EQ(z.status, 1);
  EXPECT_NE(z.err.find("/dev/zero: not a regular file"), std::string::npos) << z.err;

  // A regular file that cannot be read says so (it was "an empty file").
  RunResult m = run({OMPROF_BIN, "report", "/proc/self/mem"});
  EXPECT_EQ(m.status, 1);
  EXPECT_NE(m.err.find("/proc/self/mem: cannot read: Input/output error"), std::string::npos)
      << m.err;
}

}  // namespace
}  // namespace omprof::test

namespace omprof::test {
namespace {

TEST(Run, ANonNumericRateIsNamedAsSuch) {
  RunResult r = run({OMPROF_BIN, "run", "--rate", "abc", "--", program("exit_status")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--rate: 'abc' is not a whole number"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace omprof::test
