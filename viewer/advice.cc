#include "viewer/advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "omp/states.h"
#include "proto/state_codes.h"
#include "viewer/scaling.h"

namespace omprof::viewer {

namespace {

using namespace format;

// Everything a gain model needs of the advised run.
struct Context {
  const ScalingRun& run;
  double cores;                  // ranks x threads: thread time lost everywhere / cores = wall time
  double sampled_total, period;  // S and S / n (the sampled time per sample)
};

// Variance of a time whose sampled part is `sampled` (a share of the run's sampled time).
double variance(const Context& c, double sampled) {
  if (c.sampled_total <= 0 || sampled <= 0) return 0;
  return sampled * c.period * std::max(0.0, 1 - sampled / c.sampled_total);
}

// "solve.c:42" and "solve" from "<solve: omp parallel @ solve.c:42>".
std::string place_in_frame_name(const std::string& frame) {
  const size_t at = frame.rfind(" @ ");
  return at == std::string::npos ? "" : frame.substr(at + 3, frame.size() - at - 4);
}

double in_states(const std::map<uint32_t, double>& states, uint32_t first, uint32_t last) {
  double ns = 0;
  for (const auto& [state, t] : states)
    if (state >= first && state <= last) ns += t;
  return ns;
}

double in_states(const ConstructFacts& f, uint32_t first, uint32_t last) {
  return in_states(f.states, first, last);
}

// A finding of `thread_ns` thread time lost in `cls` inside construct `key`: its wall-time gain
// (thread time / cores) and its error from the class's sampled share there.
Finding construct_finding(const Context& c, const std::string& key, LossClass cls,
                          double thread_ns) {
  Finding f;
  f.where = key;
  f.place = place_in_frame_name(key);
  f.gain_ns = thread_ns / c.cores;
  const auto it = c.run.parallel_regions.find(key);
  double sampled = 0;
  if (it != c.run.parallel_regions.end() && it->second.at(cls) > 0)
    sampled = thread_ns * it->second.sampled[size_t(cls)] / it->second.at(cls);
  f.error_ns = std::sqrt(variance(c, sampled)) / c.cores;
  return f;
}

std::string us(double ns) {
  return ns >= 1e6 ? fmt::format("{:.2f} ms", ns * 1e-6) : fmt::format("{:.1f} us", ns * 1e-3);
}

void imbalance_findings(const Context& c, std::vector<Finding>& out) {
  for (const auto& [key, t] : c.run.parallel_regions) {
    const double waited = t.at(LossClass::kImbalance);
    if (waited <= 0 || key.front() != '<') continue;
    Finding f = construct_finding(c, key, LossClass::kImbalance, waited);
    f.kind = "load_imbalance";
    const double incl = t.total();
    f.evidence = fmt::format(
        "the team waited {:.3f} thread-s at the construct's barriers for its slowest member, "
        "{:.1f}% of its {:.3f} thread-s inside",
        waited * 1e-9, 100 * waited / incl, incl * 1e-9);
    f.numbers = {{"imbalance_thread_s", waited * 1e-9}, {"construct_thread_s", incl * 1e-9}};
    f.advice =
        "spread the work evenly over the team: for a loop, schedule(dynamic[, chunk]) or "
        "schedule(guided) when iterations differ in cost, collapse(2) when the outer loop has "
        "few iterations; for recursive work, tasks";
    out.push_back(std::move(f));
  }
}

// The workers' idle time blamed on the main thread's fork or join of construct `key` (its
// paths end in <omp:fork-overhead> or <omp:overhead> right below the construct's frame or its
// function's): part of what each fork and join costs.
double idle_during_fork(const Context& c, const std::string& key) {
  const size_t colon = key.find(':');
  const std::string function = colon == std::string::npos ? "" : key.substr(1, colon - 1);
  double ns = 0;
  for (const auto& [path, t] : c.run.paths) {
    const size_t leaf = path.rfind(';');
    if (leaf == std::string::npos) continue;
    const std::string name = path.substr(leaf + 1);
    if (name != "<omp:fork-overhead>" && name != "<omp:overhead>") continue;
    const size_t before = path.rfind(';', leaf - 1);
    const std::string parent = path.substr(before == std::string::npos ? 0 : before + 1,
                                           leaf - (before == std::string::npos ? 0 : before + 1));
    if (parent == key || parent == function) ns += t.at(LossClass::kSerial);
  }
  return ns;
}

// One kind of runtime cost in a construct: the runtime's own work (sampled), and thread time
// the same cause made idle or wait (measured), with what that is in words. Time sampled in
// omprof's own code there (its wrappers and callbacks, run with the runtime's) is no gain: the
// program without omprof does not spend it.
struct RuntimeCost {
  double overhead_ns = 0, caused_ns = 0, collector_ns = 0;
  std::string caused_words;
  const char* advice = nullptr;
};

// The runtime's bookkeeping in construct `key`, by what the thread was doing.
std::map<std::string, RuntimeCost> runtime_costs(const Context& c, const std::string& key,
                                                 const ConstructFacts& facts) {
  struct Kind {
    const char* kind;
    uint32_t first, last;
    const char* advice;
  };
  static const Kind kinds[] = {
      {"fork_join_overhead", kOverheadFork, kOverheadFork,
       "make the parallel regions larger: merge consecutive regions, or put omp parallel around "
       "the loop that encloses this one and omp for inside it"},
      {"fork_join_overhead", kOverhead, kOverhead, nullptr},
      {"task_overhead", kOverheadTask, kOverheadTask,
       "make tasks coarser: a cut-off (if(depth < N) or final) below which the work runs "
       "serially, or more work per task"},
      {"loop_scheduling_overhead", kOverheadLoop, kOverheadLoop,
       "give the loop larger chunks (schedule(dynamic, N) with a larger N, or guided)"},
      {"barrier_overhead", kOverheadBarrier, kOverheadBarrier,
       "fewer barriers: nowait on worksharing loops whose results are not read at once"},
      {"reduction_overhead", kOverheadReduction, kOverheadReduction,
       "fewer reductions per region, or reduce into thread-private copies once"},
  };
  std::map<std::string, RuntimeCost> costs;
  for (const Kind& k : kinds) {
    RuntimeCost& cost = costs[k.kind];
    const double own = in_states(facts.collector, k.first, k.last);
    cost.overhead_ns += in_states(facts, k.first, k.last) - own;
    cost.collector_ns += own;
    if (k.advice) cost.advice = k.advice;
  }
  RuntimeCost& fork = costs["fork_join_overhead"];
  fork.caused_ns = idle_during_fork(c, key);
  fork.caused_words = "workers idle while the main thread forked or joined";
  // Fine-grained tasks also make their parents wait, many times over: a taskwait for children
  // another thread took. A cut-off removes those waits with the overhead.
  RuntimeCost& task = costs["task_overhead"];
  if (task.overhead_ns > 0) {
    const double own = in_states(facts.collector, kWaitTaskwait, kWaitTaskgroup);
    task.caused_ns = in_states(facts, kWaitTaskwait, kWaitTaskgroup) - own;
    task.collector_ns += own;
  }
  task.caused_words = "waits in taskwait and taskgroup";
  return costs;
}

void overhead_findings(const Context& c, std::vector<Finding>& out) {
  for (const auto& [key, facts] : c.run.constructs) {
    for (const auto& [kind, cost] : runtime_costs(c, key, facts)) {
      const double spent = cost.overhead_ns + cost.caused_ns;
      if (spent <= 0) continue;
      // The error is the sampled overhead's; the caused time is measured.
      Finding f = construct_finding(c, key, LossClass::kOverhead, cost.overhead_ns);
      f.gain_ns += cost.caused_ns / c.cores;
      f.kind = kind;
      f.evidence = fmt::format("{:.3f} thread-s of OpenMP runtime work in {} instances",
                               cost.overhead_ns * 1e-9, facts.instances);
      if (cost.caused_ns > 0)
        f.evidence +=
            fmt::format(", and {:.3f} thread-s of {}", cost.caused_ns * 1e-9, cost.caused_words);
      if (cost.collector_ns > 0)
        f.evidence += fmt::format(" (less {:.3f} thread-s in omprof's own code there)",
                                  cost.collector_ns * 1e-9);
      if (facts.instances > 0)
        f.evidence += fmt::format(" ({} per instance, each {} of wall time)",
                                  us(spent / double(facts.instances)),
                                  us(facts.wall_ns / double(facts.instances)));
      f.numbers = {{"overhead_thread_s", cost.overhead_ns * 1e-9},
                   {"caused_thread_s", cost.caused_ns * 1e-9},
                   {"omprof_thread_s", cost.collector_ns * 1e-9},
                   {"instances", facts.instances},
                   {"wall_s", facts.wall_ns * 1e-9}};
      f.advice = cost.advice;
      out.push_back(std::move(f));
    }
  }
}

void contention_findings(const Context& c, std::vector<Finding>& out) {
  for (const auto& [key, facts] : c.run.constructs) {
    const double locked = in_states(facts, kWaitMutex, kWaitOrdered);
    if (locked <= 0) continue;
    Finding f = construct_finding(c, key, LossClass::kSync, locked);
    f.kind = "lock_contention";
    const double critical = in_states(facts, kWaitCritical, kWaitCritical);
    const double atomic = in_states(facts, kWaitAtomic, kWaitAtomic);
    f.evidence = fmt::format(
        "threads waited {:.3f} thread-s for locks ({:.3f} critical, {:.3f} atomic, {:.3f} lock "
        "API and ordered)",
        locked * 1e-9, critical * 1e-9, atomic * 1e-9, (locked - critical - atomic) * 1e-9);
    f.numbers = {{"lock_wait_thread_s", locked * 1e-9}, {"critical_s", critical * 1e-9}};
    f.advice =
        "shorten or remove the serialized section: a reduction clause, per-thread copies "
        "combined once, atomics for single updates, or finer locks (one per data item)";
    out.push_back(std::move(f));
  }
}

// The team idle while the main thread ran serial code: the serial loss on each path (the
// workers' idle time blamed on it, and the threads not running at all).
void serial_findings(const Context& c, std::vector<Finding>& out) {
  if (c.run.threads < 2) return;
  // The same code preempted (its <off-cpu> leaf) is the same code.
  std::map<std::string, ClassTimes> by_code;
  for (const auto& [path, t] : c.run.paths) {
    const std::string off = ";<off-cpu>";
    const bool preempted =
        path.size() > off.size() && path.compare(path.size() - off.size(), off.size(), off) == 0;
    by_code[preempted ? path.substr(0, path.size() - off.size()) : path] += t;
  }
  for (const auto& [path, t] : by_code) {
    const double idle = t.at(LossClass::kSerial);
    if (idle <= 0) continue;
    const size_t leaf = path.rfind(';');
    // The main thread forking, joining or in MPI while the workers idle: the runtime's or
    // MPI's cost (the overhead and MPI findings), not serial code to parallelize.
    const std::string leaf_name = path.substr(leaf == std::string::npos ? 0 : leaf + 1);
    if (leaf_name.rfind("<omp:", 0) == 0 || leaf_name.rfind("<mpi:", 0) == 0) continue;
    Finding f;
    f.kind = "serial_code";
    f.where = path == kNotRunningPath ? "the main thread alone while no worker ran (before the "
                                        "first parallel region, or after the last)"
                                      : path;
    f.place = path.substr(leaf == std::string::npos ? 0 : leaf + 1);
    f.gain_ns = idle / c.cores;
    f.error_ns = std::sqrt(variance(c, t.sampled[size_t(LossClass::kSerial)])) / c.cores;
    const double serial_wall = idle / double(c.run.threads - 1) / double(c.run.ranks);
    f.evidence = fmt::format(
        "{} workers idle for {:.3f} s of the main thread's serial code here ({:.3f} thread-s)",
        c.run.threads - 1, serial_wall * 1e-9, idle * 1e-9);
    f.numbers = {{"idle_thread_s", idle * 1e-9}, {"serial_wall_s", serial_wall * 1e-9}};
    f.advice = fmt::format(
        "run this code in parallel too (omp parallel for, tasks), or give the idle team other "
        "work meanwhile; at {} threads that saves (1 - 1/{}) of its time",
        c.run.threads, c.run.threads);
    for (const char* call : {";malloc", ";free", ";brk", ";sbrk", ";mmap", ";munmap"})
      if (path.find(call) != std::string::npos) {
        f.advice +=
            ". This is the allocator getting or returning memory: allocate the arrays once and "
            "reuse them, or keep glibc from giving memory back between steps "
            "(MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_); that also saves the page faults of "
            "touching fresh memory, which this finding does not count";
        break;
      }
    out.push_back(std::move(f));
  }
}

// Ranks outside MPI longer than the others make the others wait in MPI: perfectly balanced,
// each rank would take the average.
void mpi_findings(const Context& c, std::vector<Finding>& out) {
  const std::vector<double>& o = c.run.rank_outside_mpi_ns;
  if (o.size() < 2) return;
  double sum = 0, most = 0;
  size_t slowest = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    sum += o[i];
    if (o[i] > most) most = o[i], slowest = i;
  }
  const double mean = sum / double(o.size());
  Finding f;
  f.kind = "mpi_imbalance";
  std::string slow;
  for (size_t i = 0; i < o.size(); ++i)
    if (o[i] >= mean + 0.5 * (most - mean) && i < c.run.rank_ids.size())
      slow += (slow.empty() ? "" : ",") + std::to_string(c.run.rank_ids[i]);
  f.where = "ranks " + slow;
  f.gain_ns = most - mean;
  // The work that makes the slowest rank slow: its path with the most work above the average.
  std::map<std::string, double> mean_work;
  for (const auto& rank : c.run.rank_path_work_ns)
    for (const auto& [path, ns] : rank) mean_work[path] += ns / double(o.size());
  std::string heavy;
  double extra = 0;
  if (slowest < c.run.rank_path_work_ns.size())
    for (const auto& [path, ns] : c.run.rank_path_work_ns[slowest])
      if (ns - mean_work[path] > extra) extra = ns - mean_work[path], heavy = path;
  f.place = heavy.substr(heavy.rfind(';') == std::string::npos ? 0 : heavy.rfind(';') + 1);
  f.evidence = fmt::format(
      "outside MPI the slowest rank took {:.3f} s, the average {:.3f} s (MPI load balance "
      "{:.3f}); its work above the average rank's is mostly in {} ({:.3f} thread-s)",
      most * 1e-9, mean * 1e-9, mean / most, heavy.empty() ? "?" : heavy, extra * 1e-9);
  f.numbers = {{"slowest_outside_mpi_s", most * 1e-9},
               {"mean_outside_mpi_s", mean * 1e-9},
               {"extra_work_path", heavy},
               {"extra_work_thread_s", extra * 1e-9}};
  f.advice = "balance the decomposition: give the slow ranks less of the work in " +
             (heavy.empty() ? std::string("their computation") : f.place) +
             ", or let ranks exchange work";
  out.push_back(std::move(f));
}

// What to try about time in one MPI function, by the kind of call.
std::string mpi_call_advice(const std::string& call) {
  static const char* const collectives[] = {"MPI_Allreduce", "MPI_Reduce",   "MPI_Bcast",
                                            "MPI_Allgather", "MPI_Alltoall", "MPI_Gather",
                                            "MPI_Scatter",   "MPI_Scan",     "MPI_Exscan"};
  for (const char* c : collectives)
    if (call.rfind(c, 0) == 0)
      return fmt::format(
          "fewer, larger collectives: combine the values of several {} calls into one (an "
          "array, or a derived datatype), or start it non-blocking (MPI_I{}) before work that "
          "does not need its result and complete it after",
          call, char(std::tolower(call[4])) + call.substr(5));
  if (call == "MPI_Barrier")
    return "remove barriers that order nothing (collectives and matched messages already "
           "synchronize the ranks they involve)";
  return "overlap the communication with computation: post MPI_Irecv and MPI_Isend before the "
         "work that does not need the data and wait after it; send fewer, larger messages";
}

// Time inside MPI at a call site that even the rank that spent the least there spent: the
// call's own cost (latency, transfer, the library's work), not waiting for slower ranks (that is
// the imbalance finding). Every rank's time there would go with the call, or overlap with work.
// A rank with no time at the site counts as 0: a site some ranks never reach (one side of a
// message) has no finding, its time not told apart from waiting.
void mpi_call_findings(const Context& c, std::vector<Finding>& out) {
  const auto& ranks = c.run.rank_path_mpi_ns;
  std::map<std::string, double> sum;
  for (const auto& rank : ranks)
    for (const auto& [path, ns] : rank) sum[path] += ns;
  const double threads = double(c.run.threads), n = double(ranks.size());
  for (const auto& [path, total] : sum) {
    double least = total;
    for (const auto& rank : ranks) {
      const auto it = rank.find(path);
      least = std::min(least, it == rank.end() ? 0.0 : it->second);
    }
    if (least <= 0) continue;
    const size_t leaf = path.rfind(';');
    const std::string call = path.substr(leaf + 6, path.size() - leaf - 7);  // ";<mpi:...>"
    const size_t caller = path.rfind(';', leaf - 1);
    Finding f;
    f.kind = "mpi_calls";
    f.where = path;
    f.place = path.substr(caller == std::string::npos ? 0 : caller + 1,
                          leaf - (caller == std::string::npos ? 0 : caller + 1));
    f.gain_ns = least / threads;  // the wall time every rank spent there (exact: no error)
    f.evidence = fmt::format(
        "every rank spent at least {:.3f} s in {} here (the call's own cost), {:.3f} s on "
        "average; the rest is waiting for slower ranks",
        least / threads * 1e-9, call, total / n / threads * 1e-9);
    f.numbers = {{"call", call},
                 {"least_rank_s", least / threads * 1e-9},
                 {"mean_rank_s", total / n / threads * 1e-9}};
    f.advice = mpi_call_advice(call);
    out.push_back(std::move(f));
  }
}

// More threads than the CPUs a rank may use: they take turns, and fewer threads would not give
// the time off the CPU back (the work is the same; the waits behind preempted threads are in the
// imbalance and lock findings). A warning instead of an off_cpu finding.
bool oversubscribed(const ScalingRun& run, std::vector<std::string>& warnings) {
  if (run.min_cpus_allowed == 0 || run.threads <= run.min_cpus_allowed) return false;
  warnings.push_back(fmt::format(
      "{} threads per rank ran on {} CPU{} (rank {}'s affinity): the threads take turns, so the "
      "time off the CPU is no gain; run at most {} threads per rank (OMP_NUM_THREADS), or give "
      "each rank more CPUs (the MPI launcher's binding); the waits behind preempted threads are "
      "in the imbalance and lock findings",
      run.threads, run.min_cpus_allowed, run.min_cpus_allowed == 1 ? "" : "s", run.min_cpus_rank,
      run.min_cpus_allowed));
  return true;
}

void off_cpu_finding(const Context& c, std::vector<Finding>& out) {
  const double off = c.run.all.at(LossClass::kOffCpu);
  if (off <= 0) return;
  Finding f;
  f.kind = "off_cpu";
  f.where = "the program's work";
  f.gain_ns = off / c.cores;
  const double work = c.run.all.useful() + off;
  f.evidence = fmt::format(
      "threads were preempted, blocked or asleep for {:.3f} thread-s while working, {:.1f}% "
      "of their work",
      off * 1e-9, 100 * off / work);
  f.numbers = {{"off_cpu_thread_s", off * 1e-9}};
  f.advice =
      "give the run its own cores (fewer threads than free cores, no other busy process; bind "
      "threads with OMP_PROC_BIND when the MPI launcher binds ranks), or remove sleeps and "
      "blocking I/O from the computation";
  out.push_back(std::move(f));
}

// With a series: work that grows with the team inside a construct (computation scalability).
void growth_findings(const Context& c, const ScalingRun& ref, std::vector<Finding>& out) {
  constexpr size_t kWork = size_t(LossClass::kWork);
  for (const auto& [key, t] : c.run.parallel_regions) {  // strong scaling: the same work
    const auto r = ref.parallel_regions.find(key);
    if (r == ref.parallel_regions.end()) continue;
    const double grown = t.at(LossClass::kWork) - r->second.at(LossClass::kWork);
    if (grown <= 0) continue;
    Finding f;
    f.kind = "work_growth";
    f.where = key;
    f.place = place_in_frame_name(key);
    f.gain_ns = grown / c.cores;
    f.error_ns =
        std::sqrt(variance(c, t.sampled[kWork]) + variance(c, r->second.sampled[kWork])) / c.cores;
    f.evidence =
        fmt::format("the work inside grew from {:.3f} to {:.3f} thread-s between {}x{} and {}x{}",
                    r->second.at(LossClass::kWork) * 1e-9, t.at(LossClass::kWork) * 1e-9, ref.ranks,
                    ref.threads, c.run.ranks, c.run.threads);
    f.numbers = {{"reference_work_thread_s", r->second.at(LossClass::kWork) * 1e-9},
                 {"work_thread_s", t.at(LossClass::kWork) * 1e-9}};
    f.advice =
        "the same work costs more with more threads: look for memory bandwidth (the threads "
        "share it), false sharing (threads writing neighbouring data), or work every thread "
        "repeats";
    out.push_back(std::move(f));
  }
}

}  // namespace

Advice advise(const std::vector<ScalingRun>& runs, double min_fraction) {
  Advice a;
  const ScalingRun& run = runs.back();
  a.input = run.input;
  a.ranks = run.ranks;
  a.threads = run.threads;
  a.elapsed_ns = run.elapsed_ns;
  if (run.samples == 0 && run.all.useful() <= 0) {
    a.note = "the profile has no samples and no measured time: nothing to advise on";
    return a;
  }
  const Context c{run, double(run.cores()), run.all.sampled_total(),
                  run.samples ? run.all.sampled_total() / double(run.samples) : 0};
  imbalance_findings(c, a.findings);
  overhead_findings(c, a.findings);
  contention_findings(c, a.findings);
  serial_findings(c, a.findings);
  mpi_findings(c, a.findings);
  mpi_call_findings(c, a.findings);
  if (!oversubscribed(run, a.warnings)) off_cpu_finding(c, a.findings);
  if (runs.size() > 1) {
    const size_t ref = smallest_run(runs, runs.size() - 1);
    if (runs[ref].cores() < run.cores()) growth_findings(c, runs[ref], a.findings);
  }
  const double floor = min_fraction * run.elapsed_ns;
  std::vector<Finding> kept;
  for (Finding& f : a.findings) {
    f.significant = f.gain_ns > 2 * f.error_ns;
    if (f.gain_ns >= floor) kept.push_back(std::move(f));
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const Finding& x, const Finding& y) { return x.gain_ns > y.gain_ns; });
  a.findings = std::move(kept);
  if (a.findings.empty())
    a.note = fmt::format("no finding would save {:.1f}% of the run or more{}", 100 * min_fraction,
                         run.threads < 2 && run.ranks < 2
                             ? ": one thread, one rank (run it with more threads for OpenMP advice)"
                             : ": its parallel regions are efficient");
  return a;
}

nlohmann::json advice_json(const Advice& a) {
  nlohmann::json j = {{"input", a.input},
                      {"ranks", a.ranks},
                      {"threads", a.threads},
                      {"elapsed_s", a.elapsed_ns * 1e-9},
                      {"note", a.note},
                      {"warnings", a.warnings},
                      {"findings", nlohmann::json::array()}};
  for (const Finding& f : a.findings)
    j["findings"].push_back({{"kind", f.kind},
                             {"where", f.where},
                             {"place", f.place},
                             {"gain_s", f.gain_ns * 1e-9},
                             {"gain%", a.elapsed_ns > 0 ? 100 * f.gain_ns / a.elapsed_ns : 0},
                             {"error_s", f.error_ns * 1e-9},
                             {"significant", f.significant},
                             {"evidence", f.evidence},
                             {"numbers", f.numbers},
                             {"advice", f.advice}});
  return j;
}

}  // namespace omprof::viewer
