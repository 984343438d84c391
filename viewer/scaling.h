// `omprof scaling RUN1 RUN2 ...` (docs/semantics.md "Scaling"): the POP metric tree of each
// configuration, hybrid and multiplicative, and where the larger configurations lose time
// against the reference: the extra thread time per call path, parallel region and explicit
// region, split into loss classes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "viewer/scaling_run.h"
#include "viewer/table.h"

namespace omprof::viewer {

// A factor with its standard error from sampling (0 where every part was measured).
struct Factor {
  double value = 0, error = 0;
};

// The metric tree of one run (docs/semantics.md): global = parallel x computation scalability;
// parallel = MPI parallel x OpenMP parallel x on-CPU efficiency; MPI parallel = MPI load
// balance x communication; OpenMP parallel = serial-region efficiency x load balance x runtime
// efficiency x synchronization efficiency.
struct MetricTree {
  Factor global, parallel, mpi_parallel, mpi_load_balance, communication, omp_parallel;
  Factor serial, omp_load_balance, runtime, synchronization, on_cpu, computation;
  double speedup = 0;  // strong: reference elapsed / elapsed; weak: the same (ideal 1)
};

enum class ScalingKind { kStrong, kWeak };

// `ref`: the reference run (its computation scalability is 1).
MetricTree metric_tree(const ScalingRun& run, const ScalingRun& ref, ScalingKind kind);

// The reference's thread time scaled to `run`'s size: what `run` would take per class and key
// with no loss (strong: the same thread time; weak: cores / reference cores times it).
double ideal_scale(const ScalingRun& run, const ScalingRun& ref, ScalingKind kind);

// The extra thread time of `run` over the ideal one at a key, per class (ns).
struct Loss {
  std::string key;
  ClassTimes now, ref;  // ref: already scaled by ideal_scale
  double total() const { return now.total() - ref.total(); }
  double of(LossClass c) const { return now.at(c) - ref.at(c); }
  double error = 0;  // of total() (ns), from both runs' sampling
};
// The loss at one key (either side may lack it: nullptr).
Loss loss_at(const std::string& key, const ClassTimes* now, const ClassTimes* ref,
             const ScalingRun& run, const ScalingRun& reference, double scale);
// Every key of either map (of `run` and `reference`), largest loss first.
std::vector<Loss> losses(const std::map<std::string, ClassTimes>& now,
                         const std::map<std::string, ClassTimes>& ref, const ScalingRun& run,
                         const ScalingRun& reference, double scale);

// Tables: factors as rows, one column per run; losses ranked, `top` rows (0: all).
Table metric_table(const std::vector<ScalingRun>& runs, const std::vector<MetricTree>& trees,
                   Format format);
// One row per run: its configuration, elapsed time, speedup over the reference, thread time.
Table runs_table(const std::vector<ScalingRun>& runs, const std::vector<MetricTree>& trees);
Table loss_table(const std::vector<Loss>& rows, double capacity_ns, size_t top,
                 const char* key_column, Format format);

// A series analysed: each run's metric tree against the reference.
struct ScalingAnalysis {
  std::vector<ScalingRun> runs;
  std::vector<MetricTree> trees;
  size_t reference = 0;
  ScalingKind kind = ScalingKind::kStrong;
  // Column labels ("2x4"); where two runs have one configuration, "2x4#2".
  std::vector<std::string> labels;
};
// The first of runs[0, count) with the fewest ranks x threads: the default reference.
size_t smallest_run(const std::vector<ScalingRun>& runs, size_t count);
// `reference`: a run's index, or runs.size() for the smallest configuration.
ScalingAnalysis analyse_scaling(std::vector<ScalingRun> runs, ScalingKind kind, size_t reference);
// The extra thread time of run `i` over the reference's (scaled), as a whole.
Loss whole_loss(const ScalingAnalysis& a, size_t i);
// Every number for the HTML page: runs, metrics, and for the largest run its losses by class,
// parallel region and explicit region (call paths are the page's flame graph).
nlohmann::json scaling_page_json(const ScalingAnalysis& a, size_t largest);

// Checks a series: one line naming what is wrong, or "".
std::string series_problem(const std::vector<ScalingRun>& runs, const std::string& region);

}  // namespace omprof::viewer
