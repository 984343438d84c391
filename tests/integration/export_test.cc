// `omprof export` against a designed program: the imbalance program (2 threads, thread t does
// t + 1 units per step, so a quarter of the region's thread time is barrier wait). Each format
// is read back independently of omprof's viewer (pprof through its own schema, folded by
// parsing the lines, speedscope as JSON) and must hold the profile's numbers exactly, and the
// design within sampling tolerance. Real tools open the files where they are installed: `go
// tool pprof` (golang-go) and speedscope's published JSON schema (python3-jsonschema).
#include <fcntl.h>
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness.h"
#include "omp/states.h"
#include "pprof.pb.h"
#include "viewer/report.h"
#include "viewer/symbolize.h"

namespace omprof::test {
namespace {

namespace pp = perftools::profiles;

constexpr const char* kBarrierState = "wait_barrier_implicit";

struct Exported {
  std::string dir;
  viewer::Model model;  // of the same profile, in the user view
  format::Profile profile;
};

// One profile of the imbalance program, shared by the tests of this file.
const Exported& imbalance() {
  static Exported* e = [] {
    auto* x = new Exported;
    x->dir = fresh_dir("export_imbalance");
    RunResult r =
        run({OMPROF_BIN, "run", "-o", x->dir, "--", program("omp_imbalance_clang"), "2", "100"});
    EXPECT_EQ(r.status, 0) << r.err;
    x->profile = only_profile(x->dir);
    x->model = viewer::build_model(x->profile, omp::View::kUser);
    return x;
  }();
  return *e;
}

std::string export_to(const std::string& format, const std::string& file,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {OMPROF_BIN, "export", "--format", format, "-o", file};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(imbalance().dir);
  RunResult r = run(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return file;
}

pp::Profile read_pprof(const std::string& path) {
  pp::Profile p;
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0) << path;
  google::protobuf::io::FileInputStream raw(fd);
  google::protobuf::io::GzipInputStream gz(&raw);
  EXPECT_TRUE(p.ParseFromZeroCopyStream(&gz)) << path << " is not a gzip'd profile.proto";
  close(fd);
  return p;
}

// The model's wait share of the parallel region (its samples under a fork), the design's unit.
double model_barrier_share(const viewer::Model& m) {
  uint64_t total = 0, barrier = 0;
  for (const auto& s : m.samples) {
    if (!s.fork_id) continue;
    total += s.weight_ns;
    if (std::string(omp::describe_state(s.state).name) == kBarrierState) barrier += s.weight_ns;
  }
  return double(barrier) / double(total);
}

// The harness runs argv[0] as a path: find a tool on PATH, "" if absent.
std::string on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return dir + "/" + tool;
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_region_frame(const std::string& name) {
  return name.find("imbalanced_step: omp parallel @ omp_imbalance.c") != std::string::npos;
}

TEST(Export, PprofHoldsTheProfilesTimeLabelsAndTheDesignedWait) {
  const Exported& e = imbalance();
  const pp::Profile p = read_pprof(export_to("pprof", e.dir + "/p.pb.gz"));
  auto str = [&](int64_t i) { return p.string_table(int(i)); };
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(str(p.sample_type(1).type()), "time");
  EXPECT_EQ(str(p.sample_type(1).unit()), "nanoseconds");
  EXPECT_EQ(str(p.default_sample_type()), "time");
  std::map<uint64_t, std::string> fn_name;
  for (const auto& f : p.function()) fn_name[f.id()] = str(f.name());
  std::map<uint64_t, std::string> loc_fn;
  for (const auto& l : p.location()) {
    ASSERT_EQ(l.line_size(), 1);
    loc_fn[l.id()] = fn_name.at(l.line(0).function_id());
  }
  uint64_t total = 0, samples = 0, in_region = 0, barrier_in_region = 0;
  std::map<int64_t, uint64_t> by_thread;
  for (const auto& s : p.sample()) {
    total += uint64_t(s.value(1));
    samples += uint64_t(s.value(0));
    std::string state;
    for (const auto& l : s.label()) {
      if (str(l.key()) == "thread") {
        EXPECT_EQ(str(l.num_unit()), "thread");  // so that thread 0 survives pprof's reader
        by_thread[l.num()] += uint64_t(s.value(1));
      }
      if (str(l.key()) == "omp_state") state = str(l.str());
    }
    EXPECT_FALSE(state.empty());
    bool region = false;
    for (uint64_t id : s.location_id()) region |= is_region_frame(loc_fn.at(id));
    if (!region) continue;
    in_region += uint64_t(s.value(1));
    if (state == kBarrierState) barrier_in_region += uint64_t(s.value(1));
  }
  // The export holds the profile's numbers exactly.
  EXPECT_EQ(total, e.model.total_weight_ns);
  EXPECT_EQ(samples, e.model.total_samples);
  ASSERT_EQ(by_thread.size(), 2u);
  EXPECT_GT(by_thread[0], 0u);
  EXPECT_GT(by_thread[1], 0u);
  // And the design: a quarter of the region's thread time waits at its barrier.
  ASSERT_GT(in_region, 0u);
  const double share = double(barrier_in_region) / double(in_region);
  EXPECT_NEAR(share, model_barrier_share(e.model), 1e-9);
  EXPECT_NEAR(share, 0.25, 0.05);
}

TEST(Export, FoldedLinesSumToTheProfileAndNameTheStateLeaf) {
  const Exported& e = imbalance();
  for (bool leaf : {false, true}) {
    const std::string file = e.dir + (leaf ? "/leaf.folded" : "/plain.folded");
    export_to("folded", file,
              leaf ? std::vector<std::string>{"--state-leaf"} : std::vector<std::string>{});
    std::ifstream in(file);
    std::string line;
    uint64_t total = 0, barrier = 0, lines = 0;
    std::set<std::string> seen;
    while (std::getline(in, line)) {
      ++lines;
      const size_t space = line.rfind(' ');
      ASSERT_NE(space, std::string::npos) << line;
      const std::string stack = line.substr(0, space);
      EXPECT_TRUE(seen.insert(stack).second) << "stack listed twice: " << stack;
      const uint64_t ns = std::stoull(line.substr(space + 1));
      total += ns;
      if (leaf && ends_with(stack, std::string(";[") + kBarrierState + "]")) barrier += ns;
    }
    EXPECT_GT(lines, 2u);
    EXPECT_EQ(total, e.model.total_weight_ns);
    if (leaf) {
      uint64_t model_barrier = 0;
      for (const auto& s : e.model.samples)
        if (std::string(omp::describe_state(s.state).name) == kBarrierState)
          model_barrier += s.weight_ns;
      EXPECT_EQ(barrier, model_barrier);
    }
  }
}

TEST(Export, SpeedscopeHasOneProfilePerThreadWithItsTime) {
  const Exported& e = imbalance();
  std::ifstream in(export_to("speedscope", e.dir + "/s.speedscope.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("$schema"), "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = doc.at("shared").at("frames");
  std::map<std::string, uint64_t> model_by_thread;
  for (const auto& s : e.model.samples)
    model_by_thread["thread " + std::to_string(s.thread)] += s.weight_ns;
  ASSERT_EQ(doc.at("profiles").size(), model_by_thread.size());
  for (const auto& prof : doc.at("profiles")) {
    EXPECT_EQ(prof.at("type"), "sampled");
    EXPECT_EQ(prof.at("unit"), "nanoseconds");
    const auto& samples = prof.at("samples");
    const auto& weights = prof.at("weights");
    ASSERT_EQ(samples.size(), weights.size());
    uint64_t sum = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      sum += weights[i].get<uint64_t>();
      for (const auto& f : samples[i]) ASSERT_LT(f.get<size_t>(), frames.size());
      // Root first: every thread's stacks start at main or a root pseudo-frame.
      const std::string root = frames[samples[i][0].get<size_t>()].at("name");
      EXPECT_TRUE(root == "main" || root.front() == '<' || root == "_dl_start_user" ||
                  root == "exit")
          << root;
    }
    EXPECT_EQ(prof.at("endValue").get<uint64_t>(), sum);
    const std::string name = prof.at("name");
    EXPECT_EQ(sum, model_by_thread[name.substr(0, name.find(" (tid"))]) << name;
  }
}

// A real reader: go tool pprof lists the top functions, the region frame and the labels.
TEST(Export, GoToolPprofReadsIt) {
  const std::string go = on_path("go");
  if (go.empty()) GTEST_SKIP() << "go is not installed (scripts/test.sh installs golang-go)";
  const Exported& e = imbalance();
  const std::string file = export_to("pprof", e.dir + "/go.pb.gz");
  const std::map<std::string, std::string> env = {{"HOME", e.dir}, {"GOCACHE", e.dir + "/gocache"}};
  RunResult top = run({go, "tool", "pprof", "-top", "-nodecount=40", file}, env);
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_NE(top.out.find("spin_cpu"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("[omp:region-end-barrier]"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("imbalanced_step"), std::string::npos) << top.out;
  RunResult tags = run({go, "tool", "pprof", "-tags", file}, env);
  ASSERT_EQ(tags.status, 0) << tags.err;
  for (const char* want : {"omp_state", kBarrierState, "thread", "tid"})
    EXPECT_NE(tags.out.find(want), std::string::npos) << want << " in\n" << tags.out;
  RunResult traces = run({go, "tool", "pprof", "-traces", file}, env);
  ASSERT_EQ(traces.status, 0) << traces.err;
  EXPECT_NE(traces.out.find("imbalanced_step: omp parallel @ omp_imbalance.c"), std::string::npos);
}

// speedscope's own schema, from the package speedscope publishes (tests/tools/).
TEST(Export, SpeedscopeFileValidatesAgainstItsSchema) {
  const Exported& e = imbalance();
  const std::string file = export_to("speedscope", e.dir + "/v.speedscope.json", {"--state-leaf"});
  const std::string python = on_path("python3");
  if (python.empty()) GTEST_SKIP() << "python3 is not installed";
  RunResult r = run({python, TEST_SOURCE_DIR "/tools/speedscope_schema.py", file,
                     std::string(TEST_OUT_DIR) + "/.speedscope-schema"});
  if (r.status == 77) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(Export, BadInputAndOutputAreClearErrors) {
  const Exported& e = imbalance();
  const std::string garbage = e.dir + "/garbage.omprof";
  std::ofstream(garbage) << "not a profile";
  RunResult bad = run({OMPROF_BIN, "export", "--format", "folded", "-o", e.dir + "/x", garbage});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("garbage.omprof"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 2) << bad.err;  // it, and "nothing"
  EXPECT_NE(access((e.dir + "/x").c_str(), F_OK), 0);
  std::remove(garbage.c_str());

  RunResult unwritable =
      run({OMPROF_BIN, "export", "-o", "/nonexistent-dir/p.pb.gz", profiles_in(e.dir).at(0)});
  EXPECT_EQ(unwritable.status, 1);
  EXPECT_NE(unwritable.err.find("cannot write '/nonexistent-dir/p.pb.gz'"), std::string::npos)
      << unwritable.err;

  RunResult format = run({OMPROF_BIN, "export", "--format", "svg", e.dir});
  EXPECT_EQ(format.status, 2);
  EXPECT_NE(format.err.find("svg"), std::string::npos) << format.err;
}

// Machine-readable output is complete unless a limit is asked for (issue 16): on the golden
// profile, each view's CSV has one row per function, call-tree node, thread and region of the
// model, and --top / --min-percent limit it only when given.
TEST(MachineReadable, CsvOfEveryViewHasEveryRow) {
  const std::string file = TEST_SOURCE_DIR "/data/regions_app.omprof";
  viewer::SymbolCache symbols;
  format::Profile p = viewer::load_profile(file, symbols);
  viewer::Model m = viewer::build_model(p, omp::View::kUser);
  std::set<std::vector<std::string>> nodes;  // every root-to-node path
  for (const auto& s : m.samples) {
    std::vector<std::string> path;
    for (auto f = s.stack.rbegin(); f != s.stack.rend(); ++f) {
      path.push_back(f->name);
      nodes.insert(path);
    }
  }
  auto rows = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {OMPROF_BIN, "report", file};
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return size_t(std::count(r.out.begin(), r.out.end(), '\n')) - 1;  // minus the header
  };
  const size_t functions = viewer::flat_rows(m).size();
  ASSERT_GT(functions, 20u) << "the text view's default limit must cut something";
  EXPECT_EQ(rows({"--flat", "--csv"}), functions);
  EXPECT_EQ(rows({"--flat", "--csv", "--top", "5"}), 5u);
  EXPECT_EQ(rows({"--tree", "--csv"}), nodes.size());
  EXPECT_LT(rows({"--tree", "--csv", "--min-percent", "5"}), nodes.size());
  EXPECT_EQ(rows({"--threads", "--csv"}), p.threads.size());
  EXPECT_EQ(rows({"--regions", "--csv"}), p.region_nodes.size() + 1);  // and "<no region>"
  // Text: 20 rows by default, every row with --top 0.
  const RunResult all = run({OMPROF_BIN, "report", file, "--flat", "--top", "0"});
  EXPECT_EQ(all.status, 0) << all.err;
  for (const auto& [key, row] : viewer::flat_rows(m))
    EXPECT_NE(all.out.find(row.name), std::string::npos) << row.name;
}

}  // namespace
}  // namespace omprof::test
