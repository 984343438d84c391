// MPI ground truth: programs whose ranks (and OpenMP threads) are designed to wait for each
// other, run under `mpirun -np N omprof run`, their profiles compared with what each rank
// measured of itself on the wall clock (tests/programs/mpi_ranks.c, mpi_fortran.f90).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "harness.h"
#include "proto/journal_reader.h"
#include "proto/mpi_calls.h"
#include "viewer/model.h"
#include "viewer/mpi_sites.h"
#include "viewer/ranks.h"
#include "viewer/symbolize.h"

namespace omprof::test {
namespace {

// What one rank of mpi_ranks printed about itself (seconds).
struct Truth {
  double step_work = 0, step_mpi = 0, step_mpi_cpu = 0, join_wait = 0, team_wait = 0, step_s = 0;
  double elapsed_s = 0;
  double slow_from_s = -1, init_end_s = 0;  // "slowafter": when the slow steps began
  double late_mpi_s = 0, late_s = 0;        // the second half of the steps: in MPI, in all
};

std::map<int, Truth> parse_truth(const std::string& out) {
  std::map<int, Truth> truth;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string word;
    int rank = -1;
    if (!(w >> word) || word != "rank" || !(w >> rank)) continue;
    Truth t;
    std::string key;
    double v = 0;
    while (w >> key >> v) {
      if (key == "step_work") t.step_work = v;
      if (key == "step_mpi") t.step_mpi = v;
      if (key == "step_mpi_cpu") t.step_mpi_cpu = v;
      if (key == "join_wait") t.join_wait = v;
      if (key == "team_wait") t.team_wait = v;
      if (key == "step_s") t.step_s = v;
      if (key == "elapsed_s") t.elapsed_s = v;
      if (key == "slow_from_s") t.slow_from_s = v;
      if (key == "init_end_s") t.init_end_s = v;
      if (key == "late_mpi_s") t.late_mpi_s = v;
      if (key == "late_s") t.late_s = v;
    }
    truth[rank] = t;
  }
  return truth;
}

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& tail) {
  std::vector<std::string> argv = {
      MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(ranks),
      "-x",    "OMP_WAIT_POLICY"};
  argv.insert(argv.end(), tail.begin(), tail.end());
  return argv;
}

// The launcher of `build` ("mpich": MPICH's Hydra, which passes the environment on by itself;
// else Open MPI's mpirun).
std::vector<std::string> launch(const std::string& build, int ranks,
                                const std::vector<std::string>& tail) {
#ifdef MPIEXEC_MPICH
  if (build == "mpich") {
    std::vector<std::string> argv = {MPIEXEC_MPICH, "-n", std::to_string(ranks)};
    argv.insert(argv.end(), tail.begin(), tail.end());
    return argv;
  }
#endif
  (void)build;
  return mpirun(ranks, tail);
}

std::vector<viewer::RankNumbers> read_ranks(const std::string& dir) {
  static viewer::SymbolCache symbols;
  std::vector<viewer::RankNumbers> ranks;
  for (const std::string& f : profiles_in(dir)) {
    format::Profile p = viewer::load_profile(f, symbols);
    ranks.push_back(viewer::rank_numbers(p));
  }
  std::sort(ranks.begin(), ranks.end(), [](auto& a, auto& b) { return a.rank < b.rank; });
  return ranks;
}

// A CSV table by its first column (quoted fields hold no commas here), each row by column name.
using CsvRows = std::map<std::string, std::map<std::string, std::string>>;
CsvRows parse_csv(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> header;
  CsvRows rows;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    std::string cell;
    while (std::getline(cs, cell, ',')) {
      if (cell.size() >= 2 && cell.front() == '"') cell = cell.substr(1, cell.size() - 2);
      cells.push_back(cell);
    }
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) continue;
    for (size_t i = 0; i < cells.size(); ++i) rows[cells[0]][header[i]] = cells[i];
  }
  return rows;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

std::vector<std::string> files_ending(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(p);
  }
  return out;
}

// The longest time any rank ran after MPI_Finalize began (its in-job snapshot), in seconds.
double longest_after_finalize_s(const std::string& dir) {
  static viewer::SymbolCache symbols;
  double longest = 0;
  for (const std::string& f : profiles_in(dir)) {
    const format::Profile p = viewer::load_profile(f, symbols);
    EXPECT_GT(p.header.mpi_finalize_start_ns(), p.header.mpi_init_end_ns()) << f;
    EXPECT_GT(p.header.mpi_init_end_ns(), 0u) << f;
    longest =
        std::max(longest, double(p.header.duration_ns() - p.header.mpi_finalize_start_ns()) / 1e9);
  }
  return longest;
}

// The job's own summary (rank 0, in MPI_Finalize) against the offline reduction of the rank
// files. Both cover the POP window, which ends where MPI_Finalize begins, so the region times,
// calls, waits, participation and the whole run's elapsed time are the same. Sampled work may
// differ by what happened after the window: off-CPU time is spread over each thread's whole
// run, so a region's work moves by at most twice the thread time after the snapshot.
void expect_in_job_summary_equals_offline(const std::string& dir, int threads_per_rank) {
  const std::vector<std::string> csv = files_ending(dir, ".summary.csv");
  ASSERT_EQ(csv.size(), 1u) << "rank 0 writes one summary";
  const CsvRows in_job = parse_csv(read_file(csv[0]));
  const RunResult rep = run({OMPROF_BIN, "report", dir, "--regions", "--format", "csv"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  const CsvRows offline = parse_csv(rep.out);
  ASSERT_EQ(in_job.size(), offline.size()) << read_file(csv[0]) << rep.out;
  const auto& run_in = in_job.at("<whole run>");
  const auto& run_off = offline.at("<whole run>");
  for (const char* exact : {"ranks", "incl_min_s", "incl_max_s", "incl_avg_s", "mpi_wait_avg_s"})
    EXPECT_EQ(run_in.at(exact), run_off.at(exact)) << "whole run: " << exact;
  const double after_s = longest_after_finalize_s(dir);
  const double work_tol = 2 * after_s * threads_per_rank + 2e-6;
  for (const auto& [path, row] : offline) {
    if (path == "<whole run>") continue;
    SCOPED_TRACE(path);
    ASSERT_TRUE(in_job.count(path));
    const auto& in = in_job.at(path);
    for (const char* exact :
         {"ranks", "missing_ranks", "incl_min_s", "incl_min_rank", "incl_avg_s", "incl_max_s",
          "incl_max_rank", "self_avg_s", "calls_min", "calls_avg", "calls_max", "mpi_wait_avg_s"})
      EXPECT_EQ(in.at(exact), row.at(exact)) << exact;
    // Off-CPU time spread over sampled waits (format 1.7) is split per sample in the viewer
    // and per aggregated context in the job: the same time, rounded differently by a few ns per
    // part (microseconds over a run), far below one sample's weight.
    EXPECT_NEAR(std::stod(in.at("omp_wait_avg_s")), std::stod(row.at("omp_wait_avg_s")), 1e-5);
    EXPECT_NEAR(std::stod(in.at("work_avg_s")), std::stod(row.at("work_avg_s")), work_tol);
    for (const char* comp : {"comp_min_s", "comp_avg_s", "comp_max_s"})
      EXPECT_NEAR(std::stod(in.at(comp)), std::stod(row.at(comp)), work_tol) << comp;
  }
  // The protobuf file holds the same summary as the CSV.
  const std::vector<std::string> pb = files_ending(dir, ".summary.ompsum");
  ASSERT_EQ(pb.size(), 1u);
  const RunResult back = run({OMPROF_BIN, "report", pb[0], "--format", "csv"});
  ASSERT_EQ(back.status, 0) << back.err;
  EXPECT_EQ(back.out, read_file(csv[0]));
}

// Five percentage points of the step's thread time, or the sampling error of a share of
// `samples` samples if larger: what the issue asks of per-rank shares.
double tolerance(double share, double step_thread_s, double period_s) {
  const auto samples = uint64_t(step_thread_s / period_s);
  return std::max(0.05, sampling_tolerance(share, samples));
}

constexpr int kSteps = 40;
constexpr double kUnitMs = 5;
constexpr double kPeriodS = 0.005;  // omprof run's default rate, 200 Hz

// Rank r computes (r+1) units per step, then MPI_Allreduce; even ranks also run region "io".
class RankImbalance : public testing::TestWithParam<std::string> {};

TEST_P(RankImbalance, PerRankMpiWaitComputationAndLoadBalanceMatchTheProgram) {
  const std::string dir = fresh_dir("mpi_ranks_" + GetParam());
  const RunResult r =
      run(launch(GetParam(), 3,
                 {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_ranks_" + GetParam()),
                  std::to_string(kSteps), std::to_string(kUnitMs), "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::map<int, Truth> truth = parse_truth(r.out);
  ASSERT_EQ(truth.size(), 3u) << r.out;
  const std::vector<viewer::RankNumbers> ranks = read_ranks(dir);
  ASSERT_EQ(ranks.size(), 3u);
  std::vector<double> comp;
  double comp_max = 0;
  for (const auto& rank : ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank.rank));
    EXPECT_NE(rank.file.find(".rank000" + std::to_string(rank.rank) + "."), std::string::npos)
        << "file names carry the zero-padded rank";
    const Truth& t = truth.at(rank.rank);
    ASSERT_TRUE(rank.regions.count("step"));
    const viewer::RankRegion& step = rank.regions.at("step");
    const double thread_s = t.step_s;  // one thread
    const double mpi = double(step.split.mpi_wait_ns) / 1e9 / thread_s;
    const double work = double(step.split.work_ns) / 1e9 / thread_s;
    EXPECT_NEAR(mpi, t.step_mpi / thread_s, tolerance(mpi, thread_s, kPeriodS));
    EXPECT_NEAR(work, t.step_work / thread_s, tolerance(work, thread_s, kPeriodS));
    EXPECT_EQ(step.calls, kSteps);
    comp.push_back(t.step_work);
    comp_max = std::max(comp_max, t.step_work);
  }
  // Load balance of the step region: avg/max computation, as each rank measured it.
  const double designed_lb = (comp[0] + comp[1] + comp[2]) / 3 / comp_max;
  const ranks::JobSummary job = ranks::summarize_ranks(ranks, 3);
  const auto& reduced = job.regions;
  const auto step =
      std::find_if(reduced.begin(), reduced.end(), [](const auto& x) { return x.path == "step"; });
  ASSERT_NE(step, reduced.end());
  EXPECT_NEAR(step->eff.load_balance, designed_lb, 0.05);
  EXPECT_EQ(step->p.comp_max_rank, 2) << "the last rank computes the most";
  EXPECT_EQ(step->p.ranks, 3);

  // Rank-conditional region: only even ranks run "io"; the union says so, without zeros.
  const auto io = std::find_if(reduced.begin(), reduced.end(),
                               [](const auto& x) { return x.path == "step/io"; });
  ASSERT_NE(io, reduced.end());
  EXPECT_EQ(io->p.ranks, 2);
  EXPECT_EQ(io->p.calls_min, kSteps) << "rank 1's absence is not a zero";
  EXPECT_DOUBLE_EQ(io->avg(io->p.calls_sum), kSteps) << "the average is over the ranks that ran it";
  EXPECT_EQ(job.differing_ranks, std::vector<int64_t>{1});

  // The whole run is the POP window, from MPI_Init's return to MPI_Finalize: the steps fill it,
  // so its efficiencies are the steps' (MPI_Init's 0.1 to 1 s are left out of them).
  double step_max = 0;
  for (const auto& [rank, t] : truth) step_max = std::max(step_max, t.step_s);
  EXPECT_NEAR(job.eff.load_balance, designed_lb, 0.05);
  EXPECT_NEAR(job.eff.communication, comp_max / step_max, 0.05);
  for (const auto& rank : ranks) EXPECT_GT(rank.setup_ns, 0u) << "MPI_Init took some time";

  // The report over the directory says the same.
  const RunResult rep = run({OMPROF_BIN, "report", dir, "--ranks", "--regions"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("POP:"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("ranks 1 lack region paths"), std::string::npos) << rep.out;

  expect_in_job_summary_equals_offline(dir, 1);
  const std::vector<std::string> text = files_ending(dir, ".summary.txt");
  ASSERT_EQ(text.size(), 1u);
  EXPECT_NE(read_file(text[0]).find("not strict: ranks 1 lack"), std::string::npos);
  EXPECT_NE(r.err.find("MPI summary of 3 ranks"), std::string::npos) << r.err;

  // Without --mpi-cpu, the CPU time of MPI calls is sampled, and the call-site view says so.
  const RunResult sites = run({OMPROF_BIN, "report", dir, "--mpi"});
  ASSERT_EQ(sites.status, 0) << sites.err;
  EXPECT_NE(sites.out.find("CPU time sampled"), std::string::npos) << sites.out;
  EXPECT_NE(sites.out.find("exchange ("), std::string::npos) << sites.out;

  // The call tree merged over the ranks: main -> compute on every rank, rank r computing r+1
  // units, so the least on rank 0 and the most on rank 2, the average the ranks' own.
  const RunResult tree = run({OMPROF_BIN, "report", dir, "--tree", "--csv"});
  ASSERT_EQ(tree.status, 0) << tree.err;
  std::istringstream lines(tree.out);
  bool found = false;
  double measured = 0;
  for (const auto& [rank, t] : truth) measured += t.step_work;
  for (std::string line; std::getline(lines, line);) {
    // node_id,parent_id,depth,ranks,incl_sum_s,incl%,incl_min_s,min_rank,incl_avg_s,...,name
    std::vector<std::string> c;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    if (c.size() != 15 || c[14] != "compute" || c[2] != "1") continue;
    found = true;
    EXPECT_EQ(c[3], "3") << line;
    EXPECT_EQ(c[7], "0") << "rank 0 computes least: " << line;
    EXPECT_EQ(c[10], "2") << "rank 2 computes most: " << line;
    // compute() is each step's work but for io's quarter unit on even ranks (0.5 of 6.5 units
    // per step, 8%), which is not under compute(): 92% of the measured work, 5 points either way.
    EXPECT_NEAR(std::stod(c[4]), 0.92 * measured, 0.05 * measured) << line;
  }
  EXPECT_TRUE(found) << tree.out;

  // The flat view merged over the ranks: time in MPI_Allreduce, exact, on every rank; rank 0
  // (computing least) waits longest, rank 2 least; the sum is what the ranks measured.
  const RunResult flat = run({OMPROF_BIN, "report", dir, "--flat", "--csv", "--top", "0"});
  ASSERT_EQ(flat.status, 0) << flat.err;
  double mpi_measured = 0, mpi_off_cpu = 0;  // the program's own, around its calls
  for (const auto& [rank, t] : truth) {
    mpi_measured += t.step_mpi;
    mpi_off_cpu += std::max(0.0, t.step_mpi - t.step_mpi_cpu);
  }
  found = false;
  std::istringstream flat_lines(flat.out);
  for (std::string line; std::getline(flat_lines, line);) {
    // ranks,self_sum_s,self%,self_min_s,min_rank,self_avg_s,self_max_s,max_rank,...,function
    std::vector<std::string> c;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    if (c.size() != 13 || c[12] != "<mpi:MPI_Allreduce>") continue;
    found = true;
    EXPECT_EQ(c[0], "3") << line;
    EXPECT_EQ(c[4], "2") << "rank 2 waits least: " << line;
    EXPECT_EQ(c[7], "0") << "rank 0 waits longest: " << line;
    const double edge = 0.05 * mpi_measured + 0.003;  // off-CPU allowance: see below
    EXPECT_LE(std::stod(c[1]), mpi_measured + edge) << line;
    EXPECT_GE(std::stod(c[1]), mpi_measured - edge - mpi_off_cpu) << line;
  }
  EXPECT_TRUE(found) << flat.out;

  // The speedscope export of the directory: one profile per rank, each rank's time in
  // MPI_Allreduce (the leaf) what that rank measured around its calls.
  const RunResult exp = run({OMPROF_BIN, "export", "--format", "speedscope", dir});
  ASSERT_EQ(exp.status, 0) << exp.err;
  const nlohmann::json doc = nlohmann::json::parse(exp.out);
  const auto& frames = doc.at("shared").at("frames");
  std::map<int, uint64_t> in_allreduce;  // by rank, over its threads' profiles
  for (const auto& prof : doc.at("profiles")) {
    const std::string name = prof.at("name");
    int rank = -1;
    ASSERT_EQ(std::sscanf(name.c_str(), "rank %d thread", &rank), 1) << name;
    in_allreduce[rank] += 0;
    for (size_t i = 0; i < prof.at("samples").size(); ++i) {
      const auto& stack = prof.at("samples")[i];
      if (!stack.empty() && frames[stack.back().get<size_t>()].at("name") == "<mpi:MPI_Allreduce>")
        in_allreduce[rank] += prof.at("weights")[i].get<uint64_t>();
    }
  }
  ASSERT_EQ(in_allreduce.size(), 3u);
  for (const auto& [rank, ns] : in_allreduce) {
    // As for the call sites below: the program's clock reads around its calls also hold its own
    // time off the CPU there (a loaded machine), which omprof's wrapper, inside the call, does
    // not see; the upper bound stays strict.
    const Truth& t = truth.at(rank);
    const double edge = 0.05 * t.step_mpi + 0.003;
    EXPECT_LE(double(ns) * 1e-9, t.step_mpi + edge) << "rank " << rank;
    EXPECT_GE(double(ns) * 1e-9, t.step_mpi - edge - std::max(0.0, t.step_mpi - t.step_mpi_cpu))
        << "rank " << rank << ": program " << t.step_mpi << " s wall, " << t.step_mpi_cpu
        << " s CPU";
  }
}

// One rank's MPI_Allreduce call site in exchange(), inside region "step".
const viewer::MpiSiteNumbers* allreduce_site(const viewer::RankMpiSites& r) {
  for (const auto& [site, n] : r.sites)
    if (site.call == format::kMpi_Allreduce && site.function == "exchange" && site.region == "step")
      return &n;
  return nullptr;
}

// `omprof report --mpi`: per call site, exact calls and wall time (against what each rank
// measured around the call), CPU time exact with --mpi-cpu (against the rank's own thread CPU
// clock), and the CPU time the samples estimate within their sampling error of the exact one.
TEST(MpiSites, CallSiteCountsWallAndCpuTimeMatchTheProgram) {
  const std::string dir = fresh_dir("mpi_sites");
  const RunResult r =
      run(mpirun(3, {OMPROF_BIN, "run", "--mpi-cpu", "-o", dir, "--", program("mpi_ranks_clang"),
                     std::to_string(kSteps), std::to_string(kUnitMs), "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::map<int, Truth> truth = parse_truth(r.out);
  ASSERT_EQ(truth.size(), 3u) << r.out;
  viewer::SymbolCache symbols;
  double exact_cpu = 0, sampled_cpu = 0, variance = 0, period = 0;
  for (const std::string& f : profiles_in(dir)) {
    const viewer::RankMpiSites s = viewer::mpi_sites(viewer::load_profile(f, symbols));
    SCOPED_TRACE("rank " + std::to_string(s.rank));
    ASSERT_TRUE(truth.count(s.rank));
    const Truth& t = truth.at(s.rank);
    EXPECT_EQ(s.cpu, viewer::MpiCpu::kExact);
    const viewer::MpiSiteNumbers* n = allreduce_site(s);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->calls, uint64_t(kSteps));
    // The program's clock reads enclose omprof's: a little more, never less. On a busy machine
    // the rank can lose the CPU between its reads and the call, which adds wall time outside
    // MPI to the program's number; its time off the CPU around the call (wall minus CPU, as it
    // measured them) bounds that.
    const double wall_s = double(n->wall_ns) / 1e9, edge_s = 0.02 * t.step_mpi + 2e-3;
    EXPECT_LE(wall_s, t.step_mpi + edge_s);
    EXPECT_GE(wall_s, t.step_mpi - edge_s - std::max(0.0, t.step_mpi - t.step_mpi_cpu))
        << "program: " << t.step_mpi << " s wall, " << t.step_mpi_cpu << " s CPU";
    EXPECT_NEAR(double(n->cpu_ns) / 1e9, t.step_mpi_cpu, 0.02 * t.step_mpi_cpu + 2e-3);
    EXPECT_LE(n->cpu_ns, n->wall_ns + 1000000);
    exact_cpu += double(n->cpu_ns) / 1e9;
    sampled_cpu += double(n->sampled_ns) / 1e9;
    period = double(s.period_ns) / 1e9;
    variance += double(n->samples) * period * period;
  }
  // Samples count periods of CPU time: their error is sqrt(count) periods; 4 of those, and one
  // period per rank for the partial periods at the call's edges.
  EXPECT_NEAR(sampled_cpu, exact_cpu, 4 * std::sqrt(variance) + 3 * period)
      << "sampled " << sampled_cpu << " s, exact " << exact_cpu << " s";
  std::printf("CPU time in MPI_Allreduce over 3 ranks: exact %.4f s, sampled %.4f +- %.4f s\n",
              exact_cpu, sampled_cpu, std::sqrt(variance));

  // The merged view: one row for the call site over the 3 ranks, rank 0 waiting longest.
  const RunResult rep = run({OMPROF_BIN, "report", dir, "--mpi", "--csv"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  bool found = false;
  std::istringstream lines(rep.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("MPI_Allreduce") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(line.rfind("3," + std::to_string(3 * kSteps) + ",", 0), 0u) << line;
    EXPECT_NE(line.find(",0,"), std::string::npos) << "rank 0 waits longest: " << line;
    EXPECT_NE(line.find(",exact,MPI_Allreduce,"), std::string::npos) << line;
    EXPECT_NE(line.find(",step"), std::string::npos) << line;
  }
  EXPECT_TRUE(found) << rep.out;
}

// "mpich": the program built with MPICH's mpicc and run by its mpiexec, where libmpich-dev is
// installed (scripts/setup.sh installs it for the tests): the wrappers' MPICH build
// (libomprof_mpi_mpich.so) is preloaded instead of Open MPI's.
#ifdef MPIEXEC_MPICH
INSTANTIATE_TEST_SUITE_P(Builds, RankImbalance, testing::Values("clang", "gcc", "mpich"));
#else
INSTANTIATE_TEST_SUITE_P(Builds, RankImbalance, testing::Values("clang", "gcc"));
#endif

// 2 ranks x 2 OpenMP threads: thread t of rank r computes (t+1)/2 of (r+1) units, so the team
// waits at the join, and rank 0 waits in MPI_Allreduce for rank 1.
class Hybrid : public testing::TestWithParam<std::string> {};

// The report over a job's directory gives the master, idle and machine facts of its ranks
// (issue 37): the sums and averages of what each rank's own report says.
static void expect_job_header_sums_the_ranks(const std::string& dir) {
  const RunResult job = run({OMPROF_BIN, "report", "--json", dir});
  ASSERT_EQ(job.status, 0) << job.err;
  const nlohmann::json facts = nlohmann::json::parse(job.out).at("job");
  double serial = 0, parallel = 0, idle = 0, blamed = 0, delay = 0;
  const std::vector<std::string> files = profiles_in(dir);
  for (const std::string& f : files) {
    const RunResult one = run({OMPROF_BIN, "report", "--json", "--flat", f});
    ASSERT_EQ(one.status, 0) << one.err;
    const nlohmann::json h = nlohmann::json::parse(one.out).at("header");
    serial += h.at("master_serial_s").get<double>() / double(files.size());
    parallel += h.at("master_parallel_s").get<double>() / double(files.size());
    idle += h.at("idle_workers_s").get<double>();
    blamed += h.at("idle_blamed_s").get<double>();
    delay += h.at("run_delay_s").get<double>();
  }
  EXPECT_NEAR(facts.at("master_serial_avg_s").get<double>(), serial, 1e-6);
  EXPECT_NEAR(facts.at("master_parallel_avg_s").get<double>(), parallel, 1e-6);
  EXPECT_NEAR(facts.at("idle_workers_s").get<double>(), idle, 1e-6);
  EXPECT_NEAR(facts.at("idle_blamed_s").get<double>(), blamed, 1e-6);
  EXPECT_NEAR(facts.at("run_delay_s").get<double>(), delay, 1e-6);
  const RunResult text = run({OMPROF_BIN, "report", dir});
  for (const char* line : {"\nMaster:    ", "\nIdle:      ", "\nMachine:   "})
    EXPECT_NE(text.out.find(line), std::string::npos) << line << " in\n" << text.out;
}

TEST_P(Hybrid, OpenMPWaitAndMpiWaitAreBothRight) {
  const std::string dir = fresh_dir("mpi_hybrid_" + GetParam());
  const RunResult r = run(mpirun(2, {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_ranks_clang"),
                                     std::to_string(kSteps), std::to_string(kUnitMs), "2"}),
                          {{"OMP_WAIT_POLICY", GetParam()}});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::map<int, Truth> truth = parse_truth(r.out);
  ASSERT_EQ(truth.size(), 2u) << r.out;
  const std::vector<viewer::RankNumbers> ranks = read_ranks(dir);
  ASSERT_EQ(ranks.size(), 2u);
  for (const auto& rank : ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank.rank));
    const Truth& t = truth.at(rank.rank);
    const viewer::RankRegion& step = rank.regions.at("step");
    const double thread_s = 2 * t.step_s;
    auto share = [&](uint64_t ns) { return double(ns) / 1e9 / thread_s; };
    const double mpi = share(step.split.mpi_wait_ns), work = share(step.split.work_ns),
                 omp = share(step.split.omp_wait_ns);
    EXPECT_NEAR(mpi, t.step_mpi / thread_s, tolerance(mpi, thread_s, kPeriodS));
    EXPECT_NEAR(work, t.step_work / thread_s, tolerance(work, thread_s, kPeriodS));
    // Waking the team is fork overhead (in the region) or the worker's idle time (in none):
    // the OpenMP wait lies between the join waits and the join waits plus the wake-ups.
    const double tol = tolerance(omp, thread_s, kPeriodS);
    EXPECT_GE(omp, t.join_wait / thread_s - tol);
    EXPECT_LE(omp, t.team_wait / thread_s + tol);
    EXPECT_GT(t.join_wait, 0.0) << "the design: thread 0 waits for thread 1";
  }
  EXPECT_GT(ranks[0].split.mpi_wait_ns, ranks[1].split.mpi_wait_ns);
  expect_in_job_summary_equals_offline(dir, 2);
  // The worker idles while the main thread waits in MPI_Allreduce outside the region: its idle
  // time is blamed on the call (issue 37, item 5), exactly: the call's wall time, 1 worker.
  viewer::SymbolCache symbols;
  for (const std::string& f : profiles_in(dir)) {
    const format::Profile p = viewer::load_profile(f, symbols);
    const viewer::Model m = viewer::build_model(p, omp::View::kUser);
    uint64_t blamed = 0;
    for (const auto& s : m.samples)
      for (const auto& frame : s.stack)
        if (frame.name.str().find("MPI_Allreduce") != std::string::npos) {
          blamed += s.idle_blame_ns;
          break;
        }
    const double mpi_s = truth.at(p.header.mpi_rank()).step_mpi;
    EXPECT_NEAR(double(blamed) * 1e-9, mpi_s, 0.03 * mpi_s + 0.002)
        << "rank " << p.header.mpi_rank();
  }
  expect_job_header_sums_the_ranks(dir);
}

INSTANTIATE_TEST_SUITE_P(WaitPolicies, Hybrid, testing::Values("active", "passive"));

// mpif.h calls. Open MPI's Fortran library calls PMPI_ directly, so only omprof's Fortran
// wrappers see them; MPICH's calls the C entry points, so a call passes both wrappers and must
// be counted once, at the program's call site, with the bindings' frames hidden.
class MpiFortran : public testing::TestWithParam<std::string> {};

TEST_P(MpiFortran, FortranCallsAreMeasured) {
  const bool mpich = GetParam() == "mpich";
  const std::string dir = fresh_dir("mpi_fortran_" + GetParam());
  const std::string summary = dir + "/api_summary.csv";
  const RunResult r =
      run(launch(GetParam(), 2,
                 {OMPROF_BIN, "run", "-o", dir, "--",
                  program(mpich ? "mpi_fortran_mpich" : "mpi_fortran"), "30", summary}));
  ASSERT_EQ(r.status, 0) << r.err;
  // The collective summary through the Fortran module: both ranks succeed, rank 0 writes the
  // regions reduced over the 2 ranks (the step region, 30 calls on each).
  EXPECT_NE(r.out.find("rank 0 mpi_summary_status 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 mpi_summary_status 0"), std::string::npos) << r.out;
  const CsvRows rows = parse_csv(read_file(summary));
  ASSERT_TRUE(rows.count("step")) << read_file(summary);
  EXPECT_EQ(rows.at("step").at("ranks"), "2");
  EXPECT_EQ(rows.at("step").at("calls_min"), "30");
  const std::vector<viewer::RankNumbers> ranks = read_ranks(dir);
  ASSERT_EQ(ranks.size(), 2u);
  static viewer::SymbolCache symbols;
  for (const std::string& f : profiles_in(dir)) {
    format::Profile p = viewer::load_profile(f, symbols);
    EXPECT_TRUE(p.header.mpi_calls_exact()) << f;
    const viewer::Model m = viewer::build_model(p, omp::View::kUser);
    EXPECT_GT(self_ns(m, "<mpi:MPI_Allreduce>"), 0u) << f;
    EXPECT_GT(self_ns(m, "<mpi:MPI_Init>"), 0u) << f;
    // In the user view the call sits right under the program's frame.
    for (const auto& s : m.samples) {
      if (s.stack.empty() || s.stack.front().name != "<mpi:MPI_Allreduce>") continue;
      ASSERT_GE(s.stack.size(), 2u);
      EXPECT_EQ(s.stack[1].name, "MAIN__") << f;
    }
    // Each call counted once, at the program's call site: 30 steps.
    const viewer::RankMpiSites sites = viewer::mpi_sites(p);
    int64_t allreduce_calls = 0;
    for (const auto& [site, n] : sites.sites) {
      if (site.call != format::kMpi_Allreduce) continue;
      allreduce_calls += n.calls;
      if (n.calls > 0) {
        EXPECT_EQ(site.function, "MAIN__") << f;
      }
    }
    EXPECT_EQ(allreduce_calls, 30) << f;
  }
  // Rank 0 computes half as much, so it waits longer in MPI_ALLREDUCE.
  EXPECT_GT(ranks[0].split.mpi_wait_ns, ranks[1].split.mpi_wait_ns);
}

#ifdef MPIEXEC_MPICH
INSTANTIATE_TEST_SUITE_P(Libraries, MpiFortran, testing::Values("openmpi", "mpich"));
#else
INSTANTIATE_TEST_SUITE_P(Libraries, MpiFortran, testing::Values("openmpi"));
#endif

// A job that ends in MPI_Abort has no summary: the aborting rank writes why, and its profile.
TEST(MpiSummary, AnAbortedJobSaysWhyThereIsNoSummary) {
  const std::string dir = fresh_dir("mpi_abort");
  const RunResult r = run(mpirun(
      2, {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_ranks_clang"), "4", "2", "1", "abort"}));
  EXPECT_NE(r.status, 0) << "MPI_Abort(3) ends the job with an error";
  const std::vector<std::string> text = files_ending(dir, ".summary.txt");
  ASSERT_EQ(text.size(), 1u) << r.err;
  EXPECT_NE(read_file(text[0]).find("missing: rank 1 called MPI_Abort(3)"), std::string::npos)
      << read_file(text[0]);
  EXPECT_TRUE(files_ending(dir, ".summary.csv").empty());
  EXPECT_FALSE(files_ending(dir, ".rank0001.omprof").empty()) << "the aborting rank's profile";
}

// A job that deadlocks in MPI and is killed: each rank works 0.3 s of CPU time, then waits in
// MPI_Recv for a message nobody sends until SIGALRM ends it 2 s later. The wait is MPI time up
// to the end (it read as off-CPU work, and --mpi said no time in MPI was measured), and the
// report says how the ranks ended.
TEST(MpiKilled, ACallInProgressAtDeathIsMpiTimeToTheEnd) {
  const std::string dir = fresh_dir("mpi_killed");
  const RunResult r =
      run(mpirun(2, {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_deadlock"), "0.3", "2"}));
  EXPECT_NE(r.status, 0) << "the ranks were killed";
  std::vector<std::string> files;
  for (const std::string& f : profiles_in(dir))
    if (!format::is_journal_path(f)) files.push_back(f);
  ASSERT_EQ(files.size(), 2u) << r.err;
  // The recovered profiles have the MPI facts the collector journals at MPI_Init's return: the
  // library, and the POP window's start (its end is the run's: MPI_Finalize never began).
  for (const std::string& f : files) {
    const format::Profile p = format::read_profile(f);
    EXPECT_TRUE(p.header.recovered()) << f;
    EXPECT_GT(p.header.mpi_init_end_ns(), 0u) << f;
    EXPECT_EQ(p.header.mpi_finalize_start_ns(), 0u) << f;
    EXPECT_FALSE(p.header.mpi_library().empty()) << f;
    EXPECT_EQ(p.header.mpi_size(), 2) << f;
  }
  for (const viewer::RankNumbers& rank : read_ranks(dir)) {
    EXPECT_NEAR(double(rank.split.mpi_wait_ns) * 1e-9, 2.0, 0.25) << "rank " << rank.rank;
    EXPECT_NEAR(double(rank.split.work_ns) * 1e-9, 0.3, 0.1) << "rank " << rank.rank;
  }
  const RunResult mpi = run({OMPROF_BIN, "report", "--mpi", dir});
  ASSERT_EQ(mpi.status, 0) << mpi.err;
  EXPECT_NE(mpi.out.find("MPI_Recv"), std::string::npos) << mpi.out;
  EXPECT_NE(mpi.out.find("mpi_deadlock.c"), std::string::npos) << "the call site: " << mpi.out;
  const RunResult rep = run({OMPROF_BIN, "report", dir});
  EXPECT_NE(rep.out.find("Ended:     ranks 0, 1: killed by signal 14"), std::string::npos)
      << rep.out;
}

// `omprof top` on a job blocked in MPI: each rank works 0.3 s of CPU time, then waits in
// MPI_Recv until SIGALRM ends it 3 s later. Its intervals stop filling while it waits; what it
// does now comes from its journal: in MPI_Recv, for as long as the program has been waiting
// (the snapshot taken 1.5 s or more into the wait, as the job's clock says it).
TEST(MpiKilled, TopShowsRanksBlockedInACallNow) {
  const std::string dir = fresh_dir("mpi_top_now");
  const auto start = std::chrono::steady_clock::now();
  std::thread job([&] {
    run(mpirun(2, {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_deadlock"), "0.3", "3"}));
  });
  nlohmann::json seen;
  double taken_s = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const RunResult t = run({OMPROF_BIN, "top", "--once", "--format", "json", dir});
    if (t.status != 0) continue;
    const nlohmann::json s = nlohmann::json::parse(t.out);
    if (s.value("ranks", 0) != 2 || s.value("running_processes", 0) != 2) continue;
    seen = s;
    taken_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  job.join();
  ASSERT_FALSE(seen.is_null()) << "no snapshot with both ranks";
  int blocked = 0;
  for (const nlohmann::json& l : seen["last_interval"]["threads"]) {
    if (l["now"].is_null()) continue;
    EXPECT_EQ(l["now"].value("state", ""), "<mpi:MPI_Recv>") << l.dump();
    // The wait began after the 0.3 s of work (and the job's start-up), well before the last
    // snapshot (taken about 3 s after the start, the wait lasting 3 s).
    EXPECT_GT(l["now"].value("for_s", 0.0), 0.5) << l.dump();
    EXPECT_LT(l["now"].value("for_s", 0.0), taken_s - 0.3) << l.dump();
    ++blocked;
  }
  EXPECT_EQ(blocked, 2) << seen.dump();
  // The run so far is the ranks' 0.3 s of work each and their MPI time, within the POP window
  // from MPI_Init's return (journaled then): MPI_Init's time is not capacity left unused
  // ("serial", as it read when a live rank's window began at its start).
  const double thread_s = seen.value("run_thread_s", 0.0);
  EXPECT_NEAR(seen["run"].value("work", 0.0) * thread_s, 0.6, 0.15) << seen.dump();
  EXPECT_LT(seen["run"].value("serial", 1.0) * thread_s, 0.05) << seen.dump();
}

// The public collective summary: strict fails the same way on every rank when the region trees
// differ (rank 1 never runs "io"), and writes nothing; the union writes rank 0's summary.
TEST(MpiSummary, TheCollectiveSummaryCallIsStrictOnRequest) {
  const std::string dir = fresh_dir("mpi_api_summary");
  const std::string path = dir + "/api_summary.txt";
  const RunResult r = run(mpirun(3, {"-x", "MPI_RANKS_API_SUMMARY", OMPROF_BIN, "run", "-o", dir,
                                     "--", program("mpi_ranks_clang"), "4", "2", "1"}),
                          {{"MPI_RANKS_API_SUMMARY", path}});
  ASSERT_EQ(r.status, 0) << r.err;
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " strict_status 6 union_status 0"),
              std::string::npos)
        << r.out;  // 6: OMPROF_ERR_MPI_INCON
  const std::string text = read_file(path);
  EXPECT_NE(text.find("(to omprof_write_mpi_summary): 3 of 3 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("not strict: ranks 1 lack"), std::string::npos) << text;
  // Without omprof the call is a no-op that says so.
  const RunResult plain =
      run(mpirun(2, {"-x", "MPI_RANKS_API_SUMMARY", program("mpi_ranks_clang"), "2", "1", "1"}),
          {{"MPI_RANKS_API_SUMMARY", dir + "/plain.txt"}});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("rank 1 strict_status 1 union_status 1"), std::string::npos)
      << plain.out;  // 1: OMPROF_ERR_NOT_INIT
}

TEST(MpiLoading, AProgramWithoutMpiLoadsNoMpiCode) {
  const RunResult plain =
      run({OMPROF_BIN, "run", "-o", fresh_dir("no_mpi"), "--", "/bin/cat", "/proc/self/maps"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("libomprof.so"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("libmpi"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("libomprof_mpi"), std::string::npos) << plain.out;
  // The check can fail: forced on, the wrappers and Open MPI are there.
  const RunResult forced = run({OMPROF_BIN, "run", "--mpi=on", "-o", fresh_dir("mpi_on"), "--",
                                "/bin/cat", "/proc/self/maps"});
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_NE(forced.out.find("libomprof_mpi.so"), std::string::npos) << forced.out;
  EXPECT_NE(forced.out.find("libmpi.so"), std::string::npos) << forced.out;
}

// A program that uses MPI only through a library it loads gets the wrappers: the launcher walks
// what the program loads (here through RUNPATH $ORIGIN) without asking the loader, and asks the
// loader when a search path needs it ($PLATFORM, which only the loader expands). Forced off,
// omprof says that time in MPI went unmeasured.
TEST(MpiLoading, MpiThroughALibraryIsFound) {
  for (const std::string library_path : {"", "/nonexistent/$PLATFORM"}) {
    const RunResult r = run(mpirun(2, {"-x", "LD_LIBRARY_PATH", OMPROF_BIN, "run", "-o",
                                       fresh_dir("mpi_indirect"), "--", program("mpi_indirect")}),
                            {{"LD_LIBRARY_PATH", library_path}});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("size 2 wrappers loaded"), std::string::npos)
        << "LD_LIBRARY_PATH=" << library_path << "\n"
        << r.out << r.err;
    EXPECT_EQ(r.err.find("not measured"), std::string::npos) << r.err;
  }
  const RunResult off =
      run(mpirun(1, {OMPROF_BIN, "run", "--mpi=off", "-o", fresh_dir("mpi_indirect_off"), "--",
                     program("mpi_indirect")}));
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_NE(off.out.find("size 1 wrappers absent"), std::string::npos) << off.out;
  EXPECT_NE(off.err.find("the program loaded libmpi.so.40 without omprof's MPI wrappers"),
            std::string::npos)
      << off.err;
}

// The views of `report` over several ranks: lines and callees sum the ranks' samples, threads,
// states and parallel regions list each rank's rows under a rank column; every number is the
// ranks' models' own.
TEST(MpiViews, LinesCalleesAndThreadsOverRanks) {
  const std::string dir = fresh_dir("mpi_views");
  const RunResult r = run(
      mpirun(2, {OMPROF_BIN, "run", "-o", dir, "--", program("mpi_ranks_clang"), "4", "20", "2"}));
  ASSERT_EQ(r.status, 0) << r.err;
  static viewer::SymbolCache symbols;
  uint64_t total = 0, through_main = 0;
  size_t threads = 0;
  std::set<std::string> rank_of_thread;
  for (const std::string& f : profiles_in(dir)) {
    const format::Profile p = viewer::load_profile(f, symbols);
    const viewer::Model m = viewer::build_model(p, omp::View::kUser);
    total += m.total_weight_ns;
    through_main += total_ns(m, "main");
    for (const auto& [i, t] : p.threads)
      if (!t.mpi_library_thread()) ++threads;
  }
  const RunResult rep = run({OMPROF_BIN, "report", dir, "--json", "--lines", "--callees", "main",
                             "--threads", "--states", "--parallel-regions"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  const nlohmann::json j = nlohmann::json::parse(rep.out);
  double self = 0;
  for (const auto& row : j.at("lines")) self += row.at("self_s").get<double>();
  EXPECT_NEAR(self, double(total) * 1e-9, 0.0005 * double(j.at("lines").size()));
  ASSERT_FALSE(j.at("callees").empty());
  EXPECT_EQ(j.at("callees")[0].at("name"), "main");
  EXPECT_NEAR(j.at("callees")[0].at("incl_s").get<double>(), double(through_main) * 1e-9, 0.001);
  std::set<int> ranks;
  size_t thread_rows = 0;
  for (const auto& row : j.at("threads")) {
    ranks.insert(row.at("rank").get<int>());
    ++thread_rows;
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
  EXPECT_GE(thread_rows, threads);
  for (const char* view : {"states", "parallel_regions"}) {
    std::set<int> seen;
    for (const auto& row : j.at(view)) seen.insert(row.at("rank").get<int>());
    EXPECT_EQ(seen, (std::set<int>{0, 1})) << view;
  }
}

// omprof scaling over ranks: mpi_ranks at 1 and 2 ranks, rank r computing r+1 units per step;
// MPI load balance is the average over ranks of the time outside MPI over its maximum, as each
// rank measured it: in the "step" region (--region step) and over the whole POP window.
TEST(MpiScaling, RankImbalanceIsMpiLoadBalance) {
  std::map<int, std::map<int, Truth>> truth;  // by job size
  std::map<int, std::string> dirs;
  for (int ranks : {1, 2}) {
    dirs[ranks] = fresh_dir("mpi_scaling_" + std::to_string(ranks));
    const RunResult r = run(mpirun(ranks, {OMPROF_BIN, "run", "-o", dirs[ranks], "--",
                                           program("mpi_ranks_clang"), "20", "20", "1"}));
    ASSERT_EQ(r.status, 0) << r.err;
    truth[ranks] = parse_truth(r.out);
    ASSERT_EQ(truth[ranks].size(), size_t(ranks)) << r.out;
  }
  for (const bool in_step : {true, false}) {
    SCOPED_TRACE(in_step ? "--region step" : "the whole run");
    std::vector<std::string> argv = {OMPROF_BIN, "scaling", "--json", dirs[1], dirs[2]};
    if (in_step) argv.insert(argv.end(), {"--region", "step"});
    const RunResult r = run(argv);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    // The program's own clocks: each rank's time outside MPI and its window, in the steps or
    // in its whole loop. A loaded machine (CI runs tests side by side) can delay a rank, which
    // the slow rank then waits for in MPI: communication's loss, measured by the program too.
    double sum = 0, most = 0, window = 0;
    for (const auto& [rank, t] : truth[2]) {
      const double span = in_step ? t.step_s : t.elapsed_s;
      const double outside = span - t.step_mpi;
      sum += outside;
      most = std::max(most, outside);
      window = std::max(window, span);
    }
    const double designed = sum / 2 / most, designed_communication = most / window;
    double lb = -1, mpi_parallel = -1, communication = -1;
    for (const nlohmann::json& row : j["metrics"]) {
      if (row["metric"] == "MPI load balance") lb = row["2x1"];
      if (row["metric"] == "MPI parallel efficiency") mpi_parallel = row["2x1"];
      if (row["metric"] == "MPI communication efficiency") communication = row["2x1"];
    }
    std::printf("MPI load balance %.3f, designed %.3f; communication %.3f, the program's %.3f\n",
                lb, designed, communication, designed_communication);
    EXPECT_NEAR(lb, designed, 0.03);
    EXPECT_NEAR(mpi_parallel, lb * communication, 0.005);
    // The ranks wait for the slow one, which is load balance, not communication. The whole
    // window also holds MPI_Init's return to the loop and MPI_Finalize: communication there can
    // only be lower than in the loop.
    if (in_step)
      EXPECT_NEAR(communication, designed_communication, 0.03);
    else
      EXPECT_LT(communication, designed_communication + 0.03);
    // The MPI loss is the fast rank's wait in MPI_Allreduce, at exchange's call path. In the
    // step region that is all of it; the whole window also holds a rank's wait for the other's
    // end, and the ranks' windows (from MPI_Init's return) start at different moments.
    const nlohmann::json& whole = j["2x1.total"][0];
    const double waited = truth[2][0].step_mpi + truth[2][1].step_mpi;
    if (in_step)
      EXPECT_NEAR(whole.value("mpi_s", 0.0), waited, 0.05 * waited + 0.01);
    else
      EXPECT_GT(whole.value("mpi_s", 0.0), waited - 0.05 * waited - 0.01);
    double at_exchange = 0;
    for (const nlohmann::json& row : j["2x1.paths"])
      if (row.value("path", "").find("exchange") != std::string::npos)
        at_exchange += row.value("mpi_s", 0.0);
    EXPECT_NEAR(at_exchange, waited, 0.05 * waited + 0.01) << j["2x1.paths"].dump();
  }
  // A job with a rank's profile missing is not a run.
  const std::string partial = fresh_dir("mpi_scaling_partial");
  const std::vector<std::string> files = profiles_in(dirs[2]);
  ASSERT_EQ(files.size(), 2u);
  std::filesystem::copy_file(files[0],
                             partial + "/" + std::filesystem::path(files[0]).filename().string());
  const RunResult r = run({OMPROF_BIN, "scaling", dirs[1], partial});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("1 of the job's 2 ranks have a profile"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// omprof advise on ranks of unequal work: the top finding is the imbalance, names the slow
// rank and the work that makes it slow, and predicts what balancing the ranks saves (mpi_ranks
// "balanced": every rank's computing and io take the average), medians of 3 interleaved jobs
// without omprof, within 20%.
// The job's time, as its ranks measured it: the longest rank's.
double job_time(const RunResult& job) {
  double longest = 0;
  for (const auto& [rank, t] : parse_truth(job.out)) longest = std::max(longest, t.elapsed_s);
  return longest;
}

// The top finding of `omprof advise` on `dir`; `all` gets the whole answer (for messages).
nlohmann::json top_finding(const std::string& dir, std::string& all) {
  const RunResult a = run({OMPROF_BIN, "advise", "--json", dir});
  EXPECT_EQ(a.status, 0) << a.err;
  all = a.out;
  const nlohmann::json j = nlohmann::json::parse(a.out);
  return j["findings"].empty() ? nlohmann::json::object() : j["findings"][0];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Three rounds of: the job under omprof (its top finding and predicted gain), the job as it is,
// the job fixed (`before`, `after`: mpi_ranks' arguments). The medians of each, and the median
// of each round's prediction over its own saving: this VM's MPI latency has two modes, and a
// switch between rounds moved one side's median without the other's (CI-like runs read 0.23 and
// 0.12 s predicted for 0.16 and 0.18 s saved), while a round's three runs, a few seconds apart,
// mostly share one mode. `top`, `all`: the first round's top finding and every finding.
struct GainCheck {
  nlohmann::json top;
  std::string all;
  double predicted = 0, measured = 0;
  double ratio = 0;  // the median over rounds of predicted / saved
  // The same with what omprof added to the round's job (profiled less alone) counted as saved:
  // its own work at every MPI call is inside the calls it measures (docs/semantics.md "Advice").
  double ratio_with_added = 0;
};
GainCheck predicted_and_saved(const std::string& name, const std::vector<std::string>& before,
                              const std::vector<std::string>& after) {
  GainCheck g;
  std::vector<double> predicted, slow, fast, ratios, ratios_with_added;
  for (int i = 0; i < 3; ++i) {
    const std::string dir = fresh_dir(name + "_" + std::to_string(i));
    std::vector<std::string> profiled = {OMPROF_BIN, "run", "-o",
                                         dir,        "--",  program("mpi_ranks_clang")};
    std::vector<std::string> b = {program("mpi_ranks_clang")}, f = b;
    profiled.insert(profiled.end(), before.begin(), before.end());
    b.insert(b.end(), before.begin(), before.end());
    f.insert(f.end(), after.begin(), after.end());
    const RunResult r = run(mpirun(2, profiled));
    EXPECT_EQ(r.status, 0) << r.err;
    std::string all;
    const nlohmann::json top = top_finding(dir, all);
    if (i == 0) g.top = top, g.all = all;
    predicted.push_back(top.value("gain_s", 0.0));
    slow.push_back(job_time(run(mpirun(2, b))));
    fast.push_back(job_time(run(mpirun(2, f))));
    std::printf("round %d: predicted %.3f s, saved %.3f s\n", i, predicted.back(),
                slow.back() - fast.back());
    ratios.push_back(slow.back() > fast.back() ? predicted.back() / (slow.back() - fast.back())
                                               : 0.0);
    const double added = std::max(0.0, job_time(r) - slow.back());
    ratios_with_added.push_back(
        slow.back() > fast.back() ? predicted.back() / (slow.back() - fast.back() + added) : 0.0);
  }
  g.ratio_with_added = median(ratios_with_added);
  g.predicted = median(predicted);
  g.measured = median(slow) - median(fast);
  g.ratio = median(ratios);
  return g;
}

TEST(MpiAdvice, RankImbalanceIsTheTopFindingAndItsGainHolds) {
  const GainCheck g =
      predicted_and_saved("mpi_advise", {"20", "20", "1"}, {"20", "20", "1", "balanced"});
  EXPECT_EQ(g.top.value("kind", ""), "mpi_imbalance") << g.all;
  EXPECT_EQ(g.top.value("where", ""), "ranks 1") << g.all;
  EXPECT_NE(g.top["numbers"].value("extra_work_path", "").find("compute"), std::string::npos)
      << g.all;
  std::printf("MPI imbalance: predicted %.3f s, balancing saved %.3f s\n", g.predicted, g.measured);
  EXPECT_NEAR(g.ratio, 1.0, 0.2) << "predicted " << g.predicted << " s, saved " << g.measured
                                 << " s";
}

// A call site that costs every rank (25,000 one-value MPI_Allreduce calls a step, balanced
// ranks): the top finding is that site, and its gain is what one 25,000-value call saves.
TEST(MpiAdvice, AChattyCallSiteIsTheTopFindingAndItsGainHolds) {
  const GainCheck g = predicted_and_saved("mpi_advise_chatty", {"20", "20", "1", "balanced,chatty"},
                                          {"20", "20", "1", "balanced,chatty-fixed"});
  EXPECT_EQ(g.top.value("kind", ""), "mpi_calls") << g.all;
  EXPECT_EQ(g.top.value("where", ""), "main;exchange;<mpi:MPI_Allreduce>") << g.all;
  EXPECT_NE(g.top.value("advice", "").find("MPI_Iallreduce"), std::string::npos) << g.all;
  std::printf(
      "MPI call site: predicted %.3f s, one larger call saved %.3f s (ratio %.2f, %.2f "
      "with what omprof added)\n",
      g.predicted, g.measured, g.ratio, g.ratio_with_added);
  // Known error: omprof's work at each of the 500,000 calls is inside the time it measures
  // there, so the prediction may hold up to what omprof added to the job (a fresh-clone run
  // read 1.19-1.27x the saving, 0.42 s against 0.34 s, with the VM's MPI in its slow mode).
  EXPECT_GT(g.ratio, 0.8) << "predicted " << g.predicted << " s, saved " << g.measured << " s";
  EXPECT_LT(g.ratio_with_added, 1.2)
      << "predicted " << g.predicted << " s, saved " << g.measured << " s";
}

// `omprof export --format speedscope-timeline DIR`: evented profiles whose opens and closes
// pair up in time order; the one named `who`...": regions and MPI calls" opens `frame` `opens`
// times.
void expect_speedscope_timeline(const std::string& dir, const std::string& who,
                                const std::string& frame, int opens) {
  const RunResult r = run({OMPROF_BIN, "export", "--format", "speedscope-timeline", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& frames = doc["shared"]["frames"];
  int counted = -1;
  for (const nlohmann::json& profile : doc["profiles"]) {
    ASSERT_EQ(profile["type"], "evented");
    const std::string name = profile["name"].get<std::string>();
    const bool events =
        name.rfind(who, 0) == 0 && name.find("regions and MPI calls") != std::string::npos;
    if (events) counted = 0;
    std::vector<int> open;
    double last = 0;
    for (const nlohmann::json& e : profile["events"]) {
      const double at = e["at"].get<double>();
      EXPECT_GE(at, last) << name;
      last = at;
      const int f = e["frame"].get<int>();
      if (e["type"] == "O") {
        open.push_back(f);
        if (events && frames[size_t(f)]["name"] == frame) ++counted;
      } else {
        ASSERT_FALSE(open.empty()) << name;
        EXPECT_EQ(open.back(), f) << name;
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty()) << name;
  }
  EXPECT_EQ(counted, opens) << r.out.substr(0, 1000);
}

// The timeline of a job whose last rank turns slow halfway (3 times its share from step 10 of
// 20, the ranks balanced before): rank 0 waits in MPI from then on. The first interval where it
// spends over 35% of its time in MPI (designed: little before, 2/3 after) is the one the slow
// step began in, or the next.
TEST(MpiTimeline, ARankMadeSlowShowsTheOthersWaitingInMpiFromThen) {
  const std::string dir = fresh_dir("mpi_timeline");
  const RunResult r =
      run(mpirun(2, {OMPROF_BIN, "run", "--rate", "1000", "-o", dir, "--",
                     program("mpi_ranks_clang"), "20", "20", "1", "balanced,slowafter"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const Truth rank0 = parse_truth(r.out).at(0);
  ASSERT_GT(rank0.slow_from_s, 0) << r.out;
  const RunResult t = run({OMPROF_BIN, "timeline", "--format", "json", dir});
  ASSERT_EQ(t.status, 0) << t.err;
  const nlohmann::json j = nlohmann::json::parse(t.out);
  const double interval = j["interval_s"].get<double>();
  const nlohmann::json* lane = nullptr;
  for (const nlohmann::json& l : j["threads"])
    if (l["rank"] == 0 && l["is_main"].get<bool>()) lane = &l;
  ASSERT_NE(lane, nullptr) << t.out.substr(0, 2000);
  auto mpi_share = [&](size_t i) {
    double present = (*lane)["off_cpu_s"][i].get<double>();
    for (double s : (*lane)["class_s"][i]) present += s;
    return present > 0 ? (*lane)["class_s"][i][6].get<double>() / present : 0.0;
  };
  const size_t from = size_t(rank0.init_end_s / interval) + 2;
  const size_t slow_at = size_t(rank0.slow_from_s / interval);
  const size_t last = size_t((rank0.init_end_s + rank0.elapsed_s) / interval);
  size_t first = 0;
  double after = 0;
  for (size_t i = from; i < last; ++i) {
    if (!first && mpi_share(i) > 0.35) first = i;
    if (i > slow_at) after += mpi_share(i) / double(last - slow_at - 1);
  }
  // The program's own share of wall time in MPI over the slow steps (designed 2/3; more where
  // the slow rank's computing is preempted): MPI calls are measured, not sampled, so only the
  // window differs (whole intervals against whole steps).
  const double truth = rank0.late_mpi_s / rank0.late_s;
  std::printf(
      "rank 0: slow steps from %.3f s, first interval waiting in MPI %zu (%.1f s), "
      "share in MPI after %.3f (the program: %.3f)\n",
      rank0.slow_from_s, first, double(first) * interval, after, truth);
  EXPECT_TRUE(first == slow_at || first == slow_at + 1)
      << "slow from " << rank0.slow_from_s << " s, first MPI interval " << first;
  EXPECT_NEAR(after, truth, 0.05);

  // Its exact events: the 20 "step" region instances (each over 10 ms), whose lengths add up to
  // the program's step time, and the MPI_Allreduce calls that waited 10 ms or more: one per slow
  // step, the first after the slow step began, their lengths the program's time in MPI then.
  double steps_s = 0, allreduce_s = 0, first_allreduce_s = -1;
  int steps = 0, allreduces = 0;
  for (const nlohmann::json& e : (*lane)["events"]) {
    const double length = e["end_s"].get<double>() - e["start_s"].get<double>();
    if (e["kind"] == "region" && e["name"] == "step") steps_s += length, ++steps;
    if (e["kind"] == "mpi" && e["name"] == "MPI_Allreduce") {
      allreduce_s += length, ++allreduces;
      if (first_allreduce_s < 0) first_allreduce_s = e["start_s"].get<double>();
    }
  }
  std::printf(
      "rank 0 events: %d steps, %.3f s (the program: %.3f s); %d MPI_Allreduce of 10 ms "
      "or more, %.3f s, the first at %.3f s (the program: %.3f s in MPI from %.3f s)\n",
      steps, steps_s, rank0.step_s, allreduces, allreduce_s, first_allreduce_s, rank0.late_mpi_s,
      rank0.slow_from_s);
  EXPECT_EQ(steps, 20);
  EXPECT_NEAR(steps_s, rank0.step_s, 0.005);
  EXPECT_EQ(allreduces, 10);
  EXPECT_NEAR(allreduce_s, rank0.late_mpi_s, 0.01);
  EXPECT_GE(first_allreduce_s, rank0.slow_from_s - 0.02);
  EXPECT_LE(first_allreduce_s, rank0.slow_from_s + 0.1);
  expect_speedscope_timeline(dir, "rank 0 thread 0 ", "region step", 20);
}

}  // namespace
}  // namespace omprof::test
