// `omprof report`'s filters, its views around a function and by source line, and its JSON
// output, checked on the golden profile (tests/data) against sums computed from the viewer's
// model directly: each view must account for exactly the samples it says it shows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness.h"
#include "omp/states.h"
#include "viewer/report.h"
#include "viewer/symbolize.h"

namespace omprof::test {
namespace {

const std::string kGolden = TEST_SOURCE_DIR "/data/regions_app.omprof";

struct Golden {
  format::Profile profile;
  viewer::Model model;
};

const Golden& golden() {
  static viewer::SymbolCache symbols;
  static Golden g = [] {
    Golden out;
    out.profile = viewer::load_profile(kGolden, symbols);
    out.model = viewer::build_model(out.profile, omp::View::kUser);
    return out;
  }();
  return g;
}

nlohmann::json report_json(std::vector<std::string> args) {
  std::vector<std::string> argv = {OMPROF_BIN, "report", kGolden, "--format", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// Seconds as the views print them (3 decimals): sums of rows agree within half a millisecond
// per row.
double secs(uint64_t ns) {
  return double(ns) * 1e-9;
}

double sum_of(const nlohmann::json& rows, const char* column) {
  double s = 0;
  for (const auto& r : rows) s += r.at(column).get<double>();
  return s;
}

uint64_t weight_if(const std::function<bool(const viewer::ViewSample&)>& keep) {
  uint64_t w = 0;
  for (const auto& s : golden().model.samples)
    if (keep(s)) w += s.weight_ns;
  return w;
}

TEST(ReportFilters, KeepExactlyTheSamplesTheyName) {
  const viewer::Model& m = golden().model;
  ASSERT_GT(m.total_samples, 200u);
  // Flat self times sum to the kept samples' weight: every kept sample has one leaf.
  auto kept_seconds = [](std::vector<std::string> filter) {
    filter.push_back("--flat");
    const nlohmann::json j = report_json(filter);
    EXPECT_TRUE(j.at("header").contains("kept_s")) << "a filtered view says so";
    const double kept = j.at("header").at("kept_s").get<double>();
    EXPECT_NEAR(sum_of(j.at("flat"), "self_s"), kept, 0.0005 * double(j.at("flat").size()) + 1e-9);
    return kept;
  };
  EXPECT_NEAR(kept_seconds({"--thread", "1"}),
              secs(weight_if([](const auto& s) { return s.thread == 1; })), 1e-6);
  const double work = kept_seconds({"--state", "work"});
  const double wait = kept_seconds({"--state", "wait"});
  EXPECT_NEAR(work, secs(weight_if([](const auto& s) { return !omp::is_wait(s.state); })), 1e-6);
  EXPECT_NEAR(work + wait, secs(m.total_weight_ns), 1e-6);
  EXPECT_GT(wait, 0.05 * (work + wait)) << "the golden program waits at its barriers";
  // --focus and --ignore of one expression partition the profile.
  const double focus = kept_seconds({"--focus", "^read_input"});
  const double ignore = kept_seconds({"--ignore", "^read_input"});
  EXPECT_NEAR(focus + ignore, secs(m.total_weight_ns), 1e-6);
  EXPECT_NEAR(focus,
              secs(weight_if([](const auto& s) { return has_frame(s.stack, "read_input()"); })),
              1e-6);
  EXPECT_GT(focus, 0);
  // Regions: by name, wherever nested.
  std::set<std::string> names;
  for (const auto& n : golden().profile.region_nodes) names.insert(golden().profile.str(n.name()));
  ASSERT_FALSE(names.empty());
  double by_region = 0;
  for (const auto& n : names) by_region += kept_seconds({"--region", n});
  EXPECT_GT(by_region, 0);
}

TEST(ReportFilters, BadFiltersAreUsageErrors) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--state", "snoozing"},
                                        {"--focus", "(unclosed"},
                                        {"--ignore", "[z-a]"}}) {
    std::vector<std::string> argv = {OMPROF_BIN, "report", kGolden};
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.status, 2) << args[0];
    EXPECT_EQ(r.err.rfind("omprof: " + args[0] + " '" + args[1] + "'", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const RunResult none = run({OMPROF_BIN, "report", kGolden, "--callers", "no_such_function_xyz"});
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("--callers 'no_such_function_xyz': no function"), std::string::npos)
      << none.err;
}

// The callee tree of F holds every sample with F in its stack, once (recursion included); the
// caller tree too, its first level split by F's callers.
TEST(CallViews, CallersAndCalleesAccountForEverySampleOfTheFunction) {
  const std::string f = "spin_for";
  const uint64_t through_f = weight_if([&](const auto& s) { return has_frame(s.stack, f); });
  ASSERT_GT(through_f, 0u);
  const nlohmann::json j = report_json({"--callers", f, "--callees", f});
  for (const char* view : {"callers", "callees"}) {
    const nlohmann::json& rows = j.at(view);
    ASSERT_FALSE(rows.empty()) << view;
    EXPECT_EQ(rows[0].at("name"), f) << view;
    EXPECT_EQ(rows[0].at("depth"), 0) << view;
    EXPECT_NEAR(rows[0].at("incl_s").get<double>(), secs(through_f), 0.0006) << view;
    // Children never hold more than their parent.
    std::map<uint64_t, double> incl;
    for (const auto& r : rows) incl[r.at("node_id")] = r.at("incl_s");
    for (const auto& r : rows)
      if (r.at("parent_id") != 0) {
        EXPECT_LE(r.at("incl_s").get<double>(), incl[r.at("parent_id")]);
      }
  }
  // The callers' first level: f's immediate callers, as the model has them.
  std::map<std::string, uint64_t> callers;
  for (const auto& s : golden().model.samples)
    for (size_t i = 0; i < s.stack.size(); ++i)
      if (s.stack[i].name == f) {
        callers[i + 1 < s.stack.size() ? s.stack[i + 1].name : "<none>"] += s.weight_ns;
        break;
      }
  const nlohmann::json& rows = j.at("callers");
  for (const auto& [caller, ns] : callers) {
    if (caller == "<none>") continue;
    bool found = false;
    for (const auto& r : rows)
      if (r.at("depth") == 1 && r.at("name") == caller) {
        found = true;
        EXPECT_NEAR(r.at("incl_s").get<double>(), secs(ns), 0.0006) << caller;
      }
    EXPECT_TRUE(found) << caller;
  }
  // A regular expression stands for every function it matches.
  const nlohmann::json re = report_json({"--callees", "spin"});  // spin_for and spin(int, double)
  EXPECT_EQ(re.at("callees")[0].at("name").get<std::string>().front(), '{');
}

// Source lines: self times sum to the profile (every sample has a leaf line), and the lines of
// the golden program's hot loop are named by file:line.
TEST(CallViews, LinesSumToTheProfileAndNameTheHotLoop) {
  const nlohmann::json j = report_json({"--lines"});
  const nlohmann::json& rows = j.at("lines");
  EXPECT_NEAR(sum_of(rows, "self_s"), secs(golden().model.total_weight_ns),
              0.0005 * double(rows.size()));
  const std::regex place(R"([A-Za-z_.]+\.(h|c|cpp):[0-9]+)");
  double spin_self = 0, spin_lines = 0;
  for (const auto& r : rows) {
    EXPECT_GE(r.at("total_s").get<double>() + 1e-9, r.at("self_s").get<double>());
    if (r.at("function") != "spin_for") continue;
    spin_self += r.at("self_s").get<double>();
    EXPECT_TRUE(std::regex_match(r.at("line").get<std::string>(), place)) << r.at("line");
    ++spin_lines;
  }
  EXPECT_GT(spin_lines, 0);
  EXPECT_NEAR(spin_self, secs(self_ns(golden().model, "spin_for")), 0.0005 * spin_lines);
}

// JSON holds the same rows and numbers as CSV, numbers as numbers, and a header.
TEST(JsonOutput, SameRowsAsCsvWithTypedValues) {
  const nlohmann::json j = report_json({"--flat", "--tree", "--threads", "--regions"});
  EXPECT_EQ(j.at("header").at("samples").get<uint64_t>(), golden().model.total_samples);
  EXPECT_EQ(j.at("header").at("threads").get<size_t>(), golden().profile.threads.size());
  for (const char* view : {"flat", "tree", "threads", "regions"}) {
    const RunResult csv = run({OMPROF_BIN, "report", kGolden, "--csv", std::string("--") + view});
    ASSERT_EQ(csv.status, 0) << csv.err;
    const size_t csv_rows = size_t(std::count(csv.out.begin(), csv.out.end(), '\n')) - 1;
    EXPECT_EQ(j.at(view).size(), csv_rows) << view;
  }
  EXPECT_TRUE(j.at("flat")[0].at("self_s").is_number());
  EXPECT_TRUE(j.at("flat")[0].at("function").is_string());
  EXPECT_TRUE(j.at("threads")[0].at("thread").is_number_unsigned());
  // Without a view flag, JSON is every view (the README's promise; it held three).
  const nlohmann::json all = report_json({});
  for (const char* view :
       {"header", "flat", "tree", "lines", "threads", "states", "parallel_regions", "regions"})
    EXPECT_TRUE(all.contains(view)) << view;
}

// Colours only on a terminal and never with NO_COLOR (no-color.org); --color always|never
// decides otherwise. A terminal is given by script(1) (util-linux, in every Debian).
TEST(ReportColour, OnlyOnATerminalAndNeverWithNoColor) {
  auto escapes = [](const std::string& s) { return std::count(s.begin(), s.end(), '\033'); };
  const RunResult piped = run({OMPROF_BIN, "report", kGolden});
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(escapes(piped.out), 0) << "not a terminal";
  const RunResult always = run({OMPROF_BIN, "report", kGolden, "--color", "always"});
  EXPECT_GT(escapes(always.out), 0);
  // Blue rows are omprof's wait frames, nothing else.
  std::istringstream lines(always.out);
  size_t blue = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.find("\033[34m") != std::string::npos) {
      ++blue;
      EXPECT_TRUE(line.find("<omp:") != std::string::npos ||
                  line.find("<mpi:") != std::string::npos)
          << line;
    }
  EXPECT_GT(blue, 0u) << "the golden profile waits at barriers";
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "script(1) is not installed";
  const std::string command = std::string(OMPROF_BIN) + " report " + kGolden;
  const RunResult tty = run({"/usr/bin/script", "-qec", command, "/dev/null"}, {{"NO_COLOR", ""}});
  EXPECT_EQ(tty.status, 0) << tty.err;
  EXPECT_GT(escapes(tty.out), 0) << "a terminal";
  const RunResult no_colour =
      run({"/usr/bin/script", "-qec", command, "/dev/null"}, {{"NO_COLOR", "1"}});
  EXPECT_EQ(no_colour.status, 0) << no_colour.err;
  EXPECT_EQ(escapes(no_colour.out), 0) << "NO_COLOR";
  EXPECT_NE(no_colour.out.find("Flat profile"), std::string::npos);
}

// A profile against itself: nothing changed, every function and region listed.
TEST(Diff, AProfileAgainstItselfChangesNothing) {
  const RunResult r = run({OMPROF_BIN, "diff", kGolden, kGolden, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("functions").size(), viewer::flat_rows(golden().model).size());
  EXPECT_EQ(j.at("regions").size(), golden().profile.region_nodes.size());
  for (const char* view : {"functions", "regions", "totals"})
    for (const auto& row : j.at(view))
      for (const auto& [column, value] : row.items())
        if (column.rfind("delta", 0) == 0 && value.is_number()) {
          EXPECT_EQ(value.get<double>(), 0.0) << view << " " << column;
        }
}

// Two runs of heavy_light, the second with light() doubled (30 -> 60 ms a round, 15 rounds):
// light's total grows by the designed 0.45 s of CPU time and heavy's does not change, within
// sampling error (both runs sampled the task clock at 1 kHz).
TEST(Diff, FindsTheFunctionThatGrewByTheDesignedTime) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event_open not allowed here";
  const std::string base = fresh_dir("diff_base"), now = fresh_dir("diff_new");
  for (const auto& [dir, light_ms] : {std::pair{base, "30"}, {now, "60"}}) {
    const RunResult r = run({OMPROF_BIN, "run", "--clock", "task", "--rate", "1000", "-o", dir,
                             "--", program("heavy_light"), "70", light_ms});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const RunResult r = run({OMPROF_BIN, "diff", base, now, "--json", "--sort", "total"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& row : j.at("functions")) by_name[row.at("function")] = row;
  ASSERT_TRUE(by_name.count("light") && by_name.count("heavy")) << r.out;
  // One standard error of a sampled time T at period P is sqrt(T / P) * P; a difference of two
  // independent runs has the root sum of squares. Four of them, plus a millisecond per round
  // for the program's own calibration.
  auto tolerance = [](double base_s, double new_s) {
    const double period = 0.001;
    return 4 * std::sqrt(base_s * period + new_s * period) + 0.015;
  };
  const auto& light = by_name["light"];
  const auto& heavy = by_name["heavy"];
  EXPECT_NEAR(light.at("delta_total_s").get<double>(), 0.45,
              tolerance(light.at("base_total_s"), light.at("new_total_s")))
      << r.out;
  EXPECT_NEAR(light.at("delta_total%").get<double>(), 100.0, 20.0);
  EXPECT_NEAR(heavy.at("delta_total_s").get<double>(), 0.0,
              tolerance(heavy.at("base_total_s"), heavy.at("new_total_s")))
      << r.out;
  // Sorted by the change of total time: the roots and light lead, heavy is far below.
  size_t light_at = 0, heavy_at = 0;
  for (size_t i = 0; i < j.at("functions").size(); ++i) {
    if (j.at("functions")[i].at("function") == "light") light_at = i;
    if (j.at("functions")[i].at("function") == "heavy") heavy_at = i;
  }
  EXPECT_LT(light_at, heavy_at);
}

// Two runs of omp_imbalance (2 threads, 60 steps), the second with units twice as long. The
// diff's row for the construct is the difference of the two runs' `report --parallel-regions`
// rows; its instances are 60 a run; its work grows by at least the designed CPU time (thread t
// spins (t + 1) units a step, each step's unit scaled as the program scales it), less sampling
// error: time a thread spent preempted in its work on a busy machine only adds to work.
TEST(Diff, ParallelRegionsChangeByTheDesignedWork) {
  if (!task_clock_usable()) GTEST_SKIP() << "perf_event_open not allowed here";
  const std::string base = fresh_dir("diff_omp_base"), now = fresh_dir("diff_omp_new");
  const int steps = 60;
  std::map<std::string, nlohmann::json> side;  // each run's row of --parallel-regions
  for (const auto& [dir, unit_ms] : {std::pair{base, "4"}, {now, "8"}}) {
    const RunResult r =
        run({OMPROF_BIN, "run", "--clock", "task", "--rate", "1000", "-o", dir, "--",
             program("omp_imbalance_clang"), "2", std::to_string(steps), unit_ms},
            {{"OMP_NUM_THREADS", "2"}});
    ASSERT_EQ(r.status, 0) << r.err;
    const RunResult rep = run({OMPROF_BIN, "report", dir, "--parallel-regions", "--json"});
    ASSERT_EQ(rep.status, 0) << rep.err;
    const nlohmann::json rows = nlohmann::json::parse(rep.out).at("parallel_regions");
    ASSERT_EQ(rows.size(), 1u) << rep.out;
    side[dir] = rows[0];
  }
  double scales = 0;  // omp_imbalance.c's step scales
  uint32_t lcg = 12345;
  for (int i = 0; i < steps; ++i) {
    lcg = lcg * 1103515245u + 12345u;
    scales += 0.5 + double((lcg >> 8) % 1000) / 1000.0;
  }
  const double designed_delta_work = 3 * 0.004 * scales;  // (1 + 2) units more a step
  const RunResult r = run({OMPROF_BIN, "diff", base, now, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("parallel_regions")) << r.out;
  ASSERT_EQ(j.at("parallel_regions").size(), 1u) << r.out;
  const nlohmann::json& step = j.at("parallel_regions")[0];
  EXPECT_EQ(
      step.at("parallel region").get<std::string>().rfind("imbalanced_step @ omp_imbalance.c:", 0),
      0u)
      << r.out;
  EXPECT_EQ(step.at("base_instances"), steps);
  EXPECT_EQ(step.at("new_instances"), steps);
  auto near = [](const nlohmann::json& a, const nlohmann::json& b) {
    return std::fabs(a.get<double>() - b.get<double>()) <= 0.0015;  // rounded to ms each
  };
  const nlohmann::json &b = side[base], &n = side[now];
  EXPECT_TRUE(near(step.at("base_incl_s"), b.at("incl_s"))) << r.out << b;
  EXPECT_TRUE(near(step.at("new_incl_s"), n.at("incl_s"))) << r.out << n;
  EXPECT_NEAR(step.at("delta_work_s").get<double>(),
              n.at("work_s").get<double>() - b.at("work_s").get<double>(), 0.003);
  EXPECT_NEAR(step.at("delta_wait_s").get<double>(),
              n.at("wait_s").get<double>() - b.at("wait_s").get<double>(), 0.003);
  // One standard error of a sampled time T at period P is sqrt(T / P) * P; four of them.
  const double tolerance =
      4 * std::sqrt((b.at("work_s").get<double>() + n.at("work_s").get<double>()) * 0.001) + 0.015;
  EXPECT_GT(step.at("delta_work_s").get<double>(), designed_delta_work - tolerance) << r.out;
  EXPECT_GT(step.at("base_wait%").get<double>(), 0.0);
  EXPECT_GT(step.at("new_wait%").get<double>(), 0.0);
}

// view and export merge the profiles they are given: runs of one command (repeated runs, the
// ranks of a job) merge; runs of different commands are refused in one line pointing to diff
// (issue 37: two configurations were summed into one flame graph without a word).
TEST(Merge, DifferentRunsAreRefusedAndRepeatedRunsMerge) {
  const std::string a = fresh_dir("merge_a"), b = fresh_dir("merge_b");
  for (const auto& [dir, heavy] : {std::pair{a, "20"}, {a, "20"}, {b, "40"}}) {
    const RunResult r =
        run({OMPROF_BIN, "run", "-o", dir, "--", program("heavy_light"), heavy, "10"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const std::string html = fresh_dir("merge_out") + "/page.html";
  RunResult same = run({OMPROF_BIN, "view", a, "-o", html});
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.err.find("(2 profiles)"), std::string::npos) << same.err;
  for (const char* command : {"view", "export"}) {
    RunResult r = run({OMPROF_BIN, command, a, b, "-o", html + ".2"});
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("different configurations (the command:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("omprof diff"), std::string::npos) << r.err;
    EXPECT_NE(access((html + ".2").c_str(), F_OK), 0) << "nothing is written";
  }
}

TEST(Diff, BadInputIsOneLine) {
  const RunResult missing = run({OMPROF_BIN, "diff", kGolden, "/nonexistent/x.omprof"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/x.omprof"), std::string::npos);
  const RunResult usage = run({OMPROF_BIN, "diff", kGolden});
  EXPECT_EQ(usage.status, 2) << usage.err;
}

// The HTML page in a real browser: headless Chromium opens it from file:// with "#selftest"; the
// page writes what it drew and what a click on its widest top frame did into <pre
// id="selftest">, which --dump-dom prints. The top frames must be the model's thread roots with
// their widths in proportion to their time, and the click must zoom to the frame. A screenshot
// stays in tests/out/html_view/ as the test's artefact.
std::string chromium() {
  if (const char* c = std::getenv("OMPROF_CHROMIUM")) return c;
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (access(c, X_OK) == 0) return c;
  return "";
}

std::string html_unescape(std::string s) {
  for (const auto& [from, to] :
       {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += std::strlen(to))
      s.replace(at, std::strlen(from), to);
  return s;
}

TEST(HtmlView, ChromiumDrawsTheTopFramesAndAClickZooms) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "Chromium is not installed (scripts/setup.sh installs it)";
  const std::string dir = fresh_dir("html_view");
  const std::string page = dir + "/view.html";
  const RunResult made = run({OMPROF_BIN, "view", kGolden, "-o", page});
  ASSERT_EQ(made.status, 0) << made.err;
  const std::string html = slurp(page);
  // Self-contained: nothing to fetch.
  for (const char* fetch : {"src=", "href=", "http://", "https://", "@import", "url("})
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;

  const std::vector<std::string> chrome = {browser,
                                           "--headless",
                                           "--no-sandbox",
                                           "--disable-gpu",
                                           "--hide-scrollbars",
                                           "--user-data-dir=" + dir + "/chrome",
                                           "--window-size=1200,900"};
  std::vector<std::string> dump = chrome;
  dump.insert(dump.end(), {"--dump-dom", "file://" + page + "#selftest"});
  const RunResult dom = run(dump);
  ASSERT_EQ(dom.status, 0) << dom.err;
  const std::string open = "<pre id=\"selftest\">";
  const size_t at = dom.out.find(open);
  ASSERT_NE(at, std::string::npos) << dom.out.substr(0, 2000);
  const size_t end = dom.out.find("</pre>", at);
  const nlohmann::json result = nlohmann::json::parse(
      html_unescape(dom.out.substr(at + open.size(), end - at - open.size())));

  // The model's thread roots (outermost frames) and their time.
  const viewer::Model& m = golden().model;
  std::map<std::string, uint64_t> roots;
  for (const auto& s : m.samples)
    if (!s.stack.empty()) roots[s.stack.back().name] += s.weight_ns;
  const double width = result.at("width").get<double>();
  ASSERT_GT(width, 100) << result.dump();
  std::map<std::string, double> drawn;
  for (const auto& f : result.at("top")) drawn[f.at("name")] = f.at("width").get<double>();
  std::string widest;
  for (const auto& [name, ns] : roots) {
    const double expected = width * double(ns) / double(m.total_weight_ns);
    if (expected < 0.5) continue;  // narrower than half a pixel: not drawn
    ASSERT_TRUE(drawn.count(name)) << name << " " << result.dump();
    EXPECT_NEAR(drawn[name], expected, 0.01 * width) << name;
    if (widest.empty() || ns > roots[widest]) widest = name;
  }
  EXPECT_EQ(drawn.size(), std::count_if(roots.begin(), roots.end(), [&](const auto& r) {
              return width * double(r.second) / double(m.total_weight_ns) >= 0.5;
            }));
  // The click zoomed to the widest frame: it now spans the whole width, its callees below it.
  EXPECT_EQ(result.at("clicked"), widest);
  EXPECT_EQ(result.at("zoomed_to"), widest);
  EXPECT_NEAR(result.at("zoomed_width").get<double>(), width, 1.0);
  std::set<std::string> callees;
  for (const auto& s : m.samples)
    if (s.stack.size() >= 2 && s.stack.back().name == widest)
      callees.insert(s.stack[s.stack.size() - 2].name);
  ASSERT_FALSE(result.at("zoomed_children").empty());
  for (const auto& c : result.at("zoomed_children")) EXPECT_TRUE(callees.count(c)) << c;
  // Searching marks the matching frames and sums their time.
  EXPECT_GE(result.at("matches").get<int>(), 1);
  EXPECT_NE(result.at("matched").get<std::string>().find("% of all"), std::string::npos);

  std::vector<std::string> shot = chrome;
  shot.insert(shot.end(), {"--screenshot=" + dir + "/view.png", "file://" + page});
  const RunResult png = run(shot);
  EXPECT_EQ(png.status, 0) << png.err;
  EXPECT_GT(slurp(dir + "/view.png").size(), 10000u) << "the screenshot artefact";
}

// The page's data is the profile's: the tree's root holds all the sampled time, and folding
// small nodes keeps every nanosecond (a parent's children, "<other>" included, sum to at most
// the parent).
TEST(HtmlView, PageDataHoldsTheWholeProfile) {
  const std::string dir = fresh_dir("html_data");
  const RunResult made = run({OMPROF_BIN, "view", kGolden, "-o", dir + "/v.html"});
  ASSERT_EQ(made.status, 0) << made.err;
  const std::string data = page_data(slurp(dir + "/v.html"));
  ASSERT_FALSE(data.empty());
  const nlohmann::json d = nlohmann::json::parse(data);
  const auto& incl = d.at("tree").at("incl_ns");
  const auto& parent = d.at("tree").at("parent");
  EXPECT_EQ(incl[0].get<uint64_t>(), golden().model.total_weight_ns);
  std::vector<uint64_t> child_sum(incl.size());
  for (size_t i = 1; i < incl.size(); ++i)
    child_sum[parent[i].get<size_t>()] += incl[i].get<uint64_t>();
  for (size_t i = 0; i < incl.size(); ++i) EXPECT_LE(child_sum[i], incl[i].get<uint64_t>()) << i;
  EXPECT_EQ(d.at("threads").size(), golden().profile.threads.size());
  EXPECT_EQ(d.at("regions").size(), golden().profile.region_nodes.size() + 1);
  // Bad output: one line, non-zero, nothing left behind.
  const RunResult bad = run({OMPROF_BIN, "view", kGolden, "-o", "/nonexistent/dir/v.html"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err.rfind("omprof: view: cannot write '/nonexistent/dir/v.html'", 0), 0u)
      << bad.err;
}

}  // namespace
}  // namespace omprof::test
