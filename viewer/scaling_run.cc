#include "viewer/scaling_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "omp/states.h"
#include "omp/user_model.h"
#include "viewer/counter_facts.h"
#include "viewer/export.h"
#include "viewer/idle_blame.h"
#include "viewer/profile_inputs.h"
#include "viewer/ranks.h"
#include "viewer/regions_view.h"
#include "viewer/run_configuration.h"
#include "viewer/summary_reader.h"
#include "viewer/symbolize.h"

namespace omprof::viewer {

const char* const kNotRunningPath = "<no thread running>";

const char* loss_class_name(LossClass c) {
  static const char* const names[kLossClasses] = {"work",     "off_cpu", "serial", "imbalance",
                                                  "overhead", "sync",    "mpi"};
  return names[size_t(c)];
}

LossClass loss_class(uint32_t state, bool& setup) {
  using namespace format;
  setup = false;
  if (omp::is_mpi(state)) {
    const uint32_t call = state - kMpiFirst;
    setup = call == 1 || call == 2 || call == 3;  // Init, Init_thread, Finalize
    return LossClass::kMpi;
  }
  if (state == kOffCpu) return LossClass::kOffCpu;
  if (!omp::is_wait(state)) return LossClass::kWork;
  if (omp::is_idle(state)) return LossClass::kSerial;
  if (omp::is_overhead(state)) return LossClass::kOverhead;
  if (state >= kWaitBarrier && state <= kWaitBarrierTeams) return LossClass::kImbalance;
  return LossClass::kSync;
}

double ClassTimes::total() const {
  double t = 0;
  for (double v : ns) t += v;
  return t;
}

double ClassTimes::sampled_total() const {
  double t = 0;
  for (double v : sampled) t += v;
  return t;
}

void ClassTimes::add(LossClass c, double t, double sampled_part) {
  ns[size_t(c)] += t;
  sampled[size_t(c)] += sampled_part;
}

ClassTimes& ClassTimes::operator+=(const ClassTimes& o) {
  for (size_t i = 0; i < kLossClasses; ++i) {
    ns[i] += o.ns[i];
    sampled[i] += o.sampled[i];
  }
  return *this;
}

// One rank's totals, for its unused capacity (outside the anonymous namespace: ScalingRunBuilder
// keeps them).
struct ScalingRankTotals {
  double elapsed_ns, thread_ns, mpi_ns;
  std::map<std::string, double> alone;  // where the rank's unused capacity goes (by weight)
};

namespace {

// "main;solve;<solve: omp parallel @ solve.c:42>;kernel": the stack root first.
std::string path_key(const StackRef& stack) {
  std::string key;
  for (auto f = stack.rbegin(); f != stack.rend(); ++f) {
    if (!key.empty()) key += ';';
    key += f->name.str();
  }
  return key.empty() ? std::string("<no stack>") : key;
}

// The innermost parallel construct on the stack, "(outside parallel regions)" outside every one.
const char* const kOutside = "(outside parallel regions)";

std::string construct_key(const StackRef& stack) {
  for (const omp::Frame& f : stack)
    if (omp::is_region_frame_name(f.name)) return f.name;
  return kOutside;
}

// The parallel construct a sample ran in: its fork record's (a task's: the region it ran in,
// up its parents), else the innermost construct on its stack, else "(outside parallel regions)".
std::string construct_key(const Model& m, const ViewSample& s) {
  for (uint64_t id = s.fork_id, hops = 0; id && hops < 64; ++hops) {
    const auto f = m.forks.find(id);
    if (f == m.forks.end()) break;
    if (!f->second.task) return omp::region_frame_name(f->second);
    id = f->second.parent_id;
  }
  return construct_key(s.stack);
}

// Explicit region nodes inside a region named `name` (itself or nested), and the outermost
// such nodes' inclusive wall time (the slowest thread's): the rank's elapsed time in it.
struct RegionScope {
  std::vector<bool> inside;  // by node id
  double wall_ns = 0;
};
RegionScope region_scope(const format::Profile& p, const std::string& name) {
  RegionScope s;
  s.inside.assign(p.region_nodes.size() + 1, false);
  for (size_t node = 1; node <= p.region_nodes.size(); ++node) {
    const uint64_t parent = p.region_nodes[node - 1].parent_id();
    const bool parent_inside = parent >= 1 && parent < node && s.inside[parent];
    s.inside[node] = parent_inside || p.str(p.region_nodes[node - 1].name()) == name;
  }
  for (const regions::SummaryRow& row : region_summary(p))
    if (row.node < s.inside.size() && s.inside[row.node] &&
        !(row.parent < s.inside.size() && s.inside[row.parent]))
      s.wall_ns += double(row.wall_max_ns);
  return s;
}

// One rank's profile added to `run`.
class RankReader {
 public:
  RankReader(const format::Profile& p, const std::string& region) : p_(p), region_(region) {}

  // The rank's elapsed time (the POP window, or the region's time) and its class times, from
  // the profile's user-model view `m`.
  void read(ScalingRun& run, const Model& m) {
    double elapsed = window_ns();
    RegionScope scope;
    if (!region_.empty()) {
      scope = region_scope(p_, region_);
      elapsed = scope.wall_ns;
    }
    for (const ViewSample& s : m.samples) {
      if (!region_.empty() &&
          !(s.region_node < scope.inside.size() && scope.inside[size_t(s.region_node)]))
        continue;
      add_sample(m, s);
    }
    spread_idle_over_blame();
    add_construct_facts(m, run);
    close(run, elapsed);
  }

 private:
  double window_ns() const { return double(pop_window_of(p_).ns()); }

  void add_sample(const Model& m, const ViewSample& s) {
    bool setup = false;
    const LossClass c = loss_class(s.state, setup);
    if (setup) return;
    const double w = double(s.weight_ns);
    const double sampled = (s.exact || s.count == 0) ? 0 : w;  // the sampled part
    if (!s.exact) samples_ += s.count;
    if (c == LossClass::kSerial) {
      idle_.add(c, w, sampled);  // placed by the blame below, or at its own path
      idle_paths_[path_key(s.stack)].add(c, w, sampled);
    } else {
      rank_.add(c, w, sampled);
      paths_[path_key(s.stack)].add(c, w, sampled);
    }
    const std::string construct = construct_key(m, s);
    parallel_[construct].add(c, w, sampled);
    states_[construct][s.state] += w;
    if (s.in_collector) collector_[construct][s.state] += w;
    if (c == LossClass::kWork) path_work_[path_key(s.stack)] += w;
    regions_[s.region_node ? region_path(p_, s.region_node) : ""].add(c, w, sampled);
    if (s.idle_blame_ns) blame_[path_key(s.stack)] += double(s.idle_blame_ns);
    // The main thread's serial work that no idle worker was blamed on ran while no worker
    // existed (before the first parallel region, or after the workers ended): where the
    // capacity no thread used goes.
    if (s.idle_blame_ns == 0 && (c == LossClass::kWork || c == LossClass::kOffCpu) &&
        construct == kOutside && is_main(s.thread))
      alone_[path_key(s.stack)] += w;
  }

  // The workers' idle time goes to the serial code that kept them idle (the main thread's
  // samples it was blamed on, format 1.14), in proportion to the blame; without blame, to the
  // idle workers' own path.
  void spread_idle_over_blame() {
    double blamed = 0;
    for (const auto& [path, ns] : blame_) blamed += ns;
    const double idle = idle_.at(LossClass::kSerial);
    rank_ += idle_;
    if (blamed <= 0) {
      for (const auto& [path, t] : idle_paths_) paths_[path] += t;
      return;
    }
    const double sampled = idle_.sampled[size_t(LossClass::kSerial)];
    for (const auto& [path, ns] : blame_)
      paths_[path].add(LossClass::kSerial, idle * ns / blamed, sampled * ns / blamed);
  }

  // Instances and wall time of each construct (its fork records), and its team's states.
  void add_construct_facts(const Model& m, ScalingRun& run) {
    for (const auto& [id, fork] : m.forks) {
      if (fork.task || id == 0 || id > p_.forks.size()) continue;
      ConstructFacts& f = run.constructs[omp::region_frame_name(fork)];
      f.instances += p_.forks[id - 1].instances();
      f.wall_ns += double(p_.forks[id - 1].wall_ns());
    }
    for (const auto& [construct, states] : states_)
      for (const auto& [state, ns] : states) run.constructs[construct].states[state] += ns;
    for (const auto& [construct, states] : collector_)
      for (const auto& [state, ns] : states) run.constructs[construct].collector[state] += ns;
  }

  // What the rank adds to the run; the capacity no thread used waits for the run's thread count.
  void close(ScalingRun& run, double elapsed) {
    run.rank_ids.push_back(p_.header.mpi_size() > 0 ? p_.header.mpi_rank() : 0);
    run.rank_work_ns.push_back(rank_.at(LossClass::kWork));
    run.rank_path_work_ns.push_back(std::move(path_work_));
    std::map<std::string, double> in_mpi;
    for (const auto& [path, t] : paths_) {
      const size_t leaf = path.rfind(';');
      if (path.compare(leaf == std::string::npos ? 0 : leaf + 1, 5, "<mpi:") == 0)
        in_mpi[path] = t.at(LossClass::kMpi) + t.at(LossClass::kSerial);
    }
    run.rank_path_mpi_ns.push_back(std::move(in_mpi));
    run.all += rank_;
    for (auto& [k, t] : paths_) run.paths[k] += t;
    for (auto& [k, t] : parallel_) run.parallel_regions[k] += t;
    for (auto& [k, t] : regions_) run.regions[k] += t;
    run.samples += samples_;
    double blamed = 0;
    for (const auto& [path, ns] : blame_) blamed += ns;
    // Without any blame (one thread, or profiles before 1.14) the unused capacity stays at
    // kNotRunningPath; where every serial sample was blamed (the worker-less moments had none),
    // it goes to the blamed serial code, in proportion.
    if (blamed <= 0) alone_.clear();
    if (blamed > 0 && alone_.empty()) alone_ = blame_;
    totals_ = {elapsed, rank_.total(), rank_.at(LossClass::kMpi), std::move(alone_)};
  }

 public:
  using Totals = ScalingRankTotals;
  Totals totals_{};

 private:
  const format::Profile& p_;
  const std::string& region_;
  uint64_t samples_ = 0;
  ClassTimes rank_, idle_;
  std::map<std::string, ClassTimes> paths_, idle_paths_, parallel_, regions_;
  std::map<std::string, double> blame_;
  std::map<std::string, std::map<uint32_t, double>> states_;     // by construct
  std::map<std::string, std::map<uint32_t, double>> collector_;  // by construct
  std::map<std::string, double> path_work_;
  std::map<std::string, double> alone_;  // the main thread's unblamed serial work, by path

  bool is_main(uint32_t thread) const {
    const auto t = p_.threads.find(thread);
    return t != p_.threads.end() && t->second.is_main();
  }
};

// `alone`: the main thread's serial work while no worker ran, by path: the unused capacity is
// spread over it in proportion; empty: all of it at kNotRunningPath.
void add_unused(ScalingRun& run, LossClass c, double ns,
                const std::map<std::string, double>& alone = {}) {
  run.all.add(c, ns);
  double weight = 0;
  for (const auto& [path, w] : alone) weight += w;
  if (weight > 0) {
    for (const auto& [path, w] : alone) run.paths[path].add(c, ns * w / weight);
  } else {
    run.paths[kNotRunningPath].add(c, ns);
  }
  run.parallel_regions[kOutside].add(c, ns);
  run.regions[""].add(c, ns);
}

// The capacity no thread used, once the run's threads per rank are known: on a rank, threads
// that did not run while it ran (serial: the master ran alone); after its end, until the
// longest rank's, it waited for the others (MPI: its MPI_Finalize, or the job's end).
// A rank whose threads' time exceeds threads x elapsed (a sample's period rounds up, or threads
// beyond the team) takes that as its capacity, and so do the others: the run's capacity is
// ranks x the largest.
void add_unused_capacity(ScalingRun& run, const std::vector<RankReader::Totals>& ranks) {
  const double threads = double(run.threads);
  double full = 0;
  for (const RankReader::Totals& r : ranks) {
    run.elapsed_ns = std::max(run.elapsed_ns, r.elapsed_ns);
    full = std::max(full, std::max(threads * r.elapsed_ns, r.thread_ns));
  }
  for (const RankReader::Totals& r : ranks) {
    const double capacity = threads * r.elapsed_ns;
    add_unused(run, LossClass::kSerial, std::max(0.0, capacity - r.thread_ns), r.alone);
    const double used = std::max(capacity, r.thread_ns);
    run.rank_outside_mpi_ns.push_back((used - r.mpi_ns) / threads);
    add_unused(run, LossClass::kMpi, full - used);
  }
  run.capacity_elapsed_ns = full / threads;
}

}  // namespace

struct ScalingRunBuilder::Ranks {
  std::set<int> ids;
  std::vector<RankReader::Totals> totals;
  int size = 0;
  size_t profiles = 0;
};

ScalingRunBuilder::ScalingRunBuilder(const std::string& input, const std::string& region,
                                     ScalingRun& run)
    : region_(region), run_(run), ranks_(std::make_unique<Ranks>()) {
  run_ = ScalingRun{};
  run_.input = input;
}

ScalingRunBuilder::~ScalingRunBuilder() = default;

bool ScalingRunBuilder::add(const format::Profile& p, std::string& error) {
  return add(build_model(p, omp::View::kUser), error);
}

bool ScalingRunBuilder::add(const Model& user_model, std::string& error) {
  const format::Profile& p = *user_model.profile;
  const RunConfiguration c = configuration_of(p);
  if (run_.program.empty()) run_.program = c.program;
  if (c.program != run_.program) {
    error = fmt::format("{}: profiles of two programs ({} and {})", run_.input, run_.program,
                        c.program);
    return false;
  }
  run_.threads = std::max({run_.threads, c.max_team, 1u});
  ranks_->size = std::max(ranks_->size, c.mpi_size);
  ranks_->ids.insert(c.mpi_size > 0 ? p.header.mpi_rank() : 0);
  ranks_->profiles += 1;
  for (size_t node = 1; node <= p.region_nodes.size(); ++node)
    run_.region_paths.insert(region_path(p, node));
  const uint32_t cpus = p.header.cpus_allowed();
  if (cpus > 0 && (run_.min_cpus_allowed == 0 || cpus < run_.min_cpus_allowed)) {
    run_.min_cpus_allowed = cpus;
    run_.min_cpus_rank = c.mpi_size > 0 ? p.header.mpi_rank() : 0;
  }
  for (const CounterFacts::Event& e : counter_facts(p).events) {
    if (!run_.counters.count(e.name)) run_.counter_order.push_back(e.name);
    run_.counters[e.name] += double(e.total);
  }
  RankReader reader(p, region_);
  reader.read(run_, user_model);
  ranks_->totals.push_back(reader.totals_);
  return true;
}

bool ScalingRunBuilder::finish(std::string& error) {
  const Ranks& r = *ranks_;
  run_.ranks = std::max(r.size, 1);
  if (r.size <= 0 && r.profiles > 1) {
    error = fmt::format("{}: {} profiles of a program without MPI; give one run per argument",
                        run_.input, r.profiles);
    return false;
  }
  if (int(r.ids.size()) != run_.ranks || r.profiles != r.ids.size()) {
    error = fmt::format("{}: {} of the job's {} ranks have a profile{}", run_.input, r.ids.size(),
                        run_.ranks, r.profiles != r.ids.size() ? " (a rank twice)" : "");
    return false;
  }
  add_unused_capacity(run_, r.totals);
  if (!region_.empty() && run_.elapsed_ns <= 0) {
    error = fmt::format("{}: no explicit region named '{}'", run_.input, region_);
    return false;
  }
  return true;
}

bool read_scaling_run(const std::string& input, const std::vector<std::string>& files,
                      const std::string& region, SymbolCache& symbols, ScalingRun& run,
                      std::string& error) {
  ScalingRunBuilder b(input, region, run);
  for (const std::string& f : files)  // one at a time: memory stays flat
    if (!b.add(load_profile(f, symbols), error)) return false;
  return b.finish(error);
}

bool read_scaling_series(const std::vector<std::string>& inputs, const std::string& region,
                         const char* command, std::vector<ScalingRun>& runs) {
  SymbolCache symbols;
  for (const std::string& input : inputs) {
    int status = 0;
    std::vector<std::string> files;
    for (const std::string& f : expand_profile_arguments({input}, status))
      if (!is_summary_path(f)) files.push_back(f);  // an MPI job summary: no samples
    if (status) return false;
    ScalingRun run;
    std::string error;
    try {
      if (!read_scaling_run(input, files, region, symbols, run, error)) {
        std::cerr << "omprof: " << command << ": " << error << "\n";
        return false;
      }
    } catch (const format::ProfileError& e) {
      tell_unreadable(e, status);
      return false;
    }
    runs.push_back(std::move(run));
  }
  return true;
}

}  // namespace omprof::viewer
