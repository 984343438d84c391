// One run of a scaling series (`omprof scaling`, docs/semantics.md "Scaling"): every rank's
// profile reduced to its thread time per loss class, as a whole, per call path (user model), per
// parallel region and per explicit region, with the capacity the run had (ranks x threads x
// elapsed). Reduced as each profile is read: memory grows with paths, never with samples.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "proto/profile_reader.h"
#include "viewer/model.h"
#include "viewer/symbolize.h"

namespace omprof::viewer {

// Where a thread's time goes, for the scaling analysis: useful work (on and off the CPU), and
// each kind of loss. One class per thread state (loss_class), and the capacity no thread used.
enum class LossClass {
  kWork,       // the program's code on a CPU
  kOffCpu,     // the program's code, the thread preempted, blocked or sleeping
  kSerial,     // workers idle while the master ran serial code, or not running at all
  kImbalance,  // waiting at a barrier for the team's slowest member
  kOverhead,   // the OpenMP runtime's bookkeeping: fork, join, scheduling, tasks, barrier sync
  kSync,       // locks, critical, atomic, ordered, taskwait and taskgroup, other waits
  kMpi,        // inside MPI calls, and a rank's end before the last rank's
  kCount
};
constexpr size_t kLossClasses = size_t(LossClass::kCount);
const char* loss_class_name(LossClass c);  // "work", "off_cpu", "serial", ...

// The class of a thread state; `setup` is set for MPI_Init and MPI_Finalize, which the analysis
// leaves out (the POP window).
LossClass loss_class(uint32_t state, bool& setup);

// Thread time per class (ns), and the part of it that samples estimated (the rest was measured:
// exact waits, off-CPU time, capacity no thread used).
struct ClassTimes {
  std::array<double, kLossClasses> ns{};
  std::array<double, kLossClasses> sampled{};
  double total() const;
  // Useful time: the program's code on a CPU (time off the CPU in it is a loss of its own).
  double useful() const { return at(LossClass::kWork); }
  double at(LossClass c) const { return ns[size_t(c)]; }
  double sampled_total() const;
  void add(LossClass c, double t, double sampled_part = 0);
  ClassTimes& operator+=(const ClassTimes& o);
};

// A parallel construct's facts beyond its class times (`omprof advise`): how often it ran, its
// fork-to-join wall time (format 1.14; 0 before), its team's time per thread state.
struct ConstructFacts {
  uint64_t instances = 0;
  double wall_ns = 0;
  std::map<uint32_t, double> states;     // ns by thread state
  std::map<uint32_t, double> collector;  // of it, sampled in omprof's own code (ViewSample)
};

struct ScalingRun {
  std::string input;    // the argument (a directory or a profile)
  std::string program;  // the program's path
  int ranks = 0;
  uint32_t threads = 0;   // OpenMP threads per rank: the largest team
  double elapsed_ns = 0;  // the longest rank's (or region's) elapsed time
  // What the capacity counts per thread: elapsed_ns, or more where a rank's threads' time
  // exceeds it (sampling rounds each thread's time up to whole periods).
  double capacity_elapsed_ns = 0;
  uint64_t samples = 0;  // samples behind the sampled parts (all.sampled)
  ClassTimes all;        // every rank, with capacity no thread used (serial, MPI)
  std::vector<double> rank_outside_mpi_ns;  // per rank: time outside MPI, as wall time
  std::map<std::string, ClassTimes> paths;  // user-model call path, root first, ";"-joined
  std::map<std::string, ClassTimes>
      parallel_regions;  // innermost construct, or "(outside parallel regions)"
  std::map<std::string, ClassTimes> regions;         // explicit region path ("" : none)
  std::set<std::string> region_paths;                // every explicit region path of every rank
  std::map<std::string, ConstructFacts> constructs;  // by the construct's user-model frame
  // The fewest CPUs a rank's affinity mask allowed at its start (Header.cpus_allowed, 1.14; 0:
  // unknown), and that rank.
  uint32_t min_cpus_allowed = 0;
  int min_cpus_rank = 0;
  // Per rank, in the order read: its number, useful work, work per call path, MPI calls.
  std::vector<int> rank_ids;
  std::vector<double> rank_work_ns;
  std::vector<std::map<std::string, double>> rank_path_work_ns;
  // Per rank: thread time in MPI calls (class mpi, and the workers idle meanwhile) by call
  // path, the path's leaf the call ("main;exchange;<mpi:MPI_Allreduce>").
  std::vector<std::map<std::string, double>> rank_path_mpi_ns;
  // Counter events (--counters): each event's count over every rank's threads, by name, and the
  // names in the order the first profile lists them.
  std::map<std::string, double> counters;
  std::vector<std::string> counter_order;
  size_t cores() const { return size_t(ranks) * threads; }
};

// The path that holds a run's capacity no thread used: threads not started yet, or ended.
extern const char* const kNotRunningPath;

// Builds one run from its profiles, one at a time (all ranks of a job, or one profile).
// `region`: only the time inside explicit regions of that name (their inclusive time on each
// rank is the elapsed time). add and finish are false with `error` (one line) when the profiles
// are not one run.
class ScalingRunBuilder {
 public:
  ScalingRunBuilder(const std::string& input, const std::string& region, ScalingRun& run);
  ~ScalingRunBuilder();
  bool add(const format::Profile& p, std::string& error);
  // The same, from the profile's user-model view (build_model(p, omp::View::kUser)) when the
  // caller has it already (omprof top builds it once for the timeline and the run).
  bool add(const Model& user_model, std::string& error);
  bool finish(std::string& error);

 private:
  struct Ranks;
  std::string region_;
  ScalingRun& run_;
  std::unique_ptr<Ranks> ranks_;
};

// Reads one run: `files` are its profiles (all ranks of a job, or one profile). `region`: only
// the time inside explicit regions of that name (their inclusive time on each rank is the
// elapsed time). False with `error` (one line) when the files are not one run.
bool read_scaling_run(const std::string& input, const std::vector<std::string>& files,
                      const std::string& region, SymbolCache& symbols, ScalingRun& run,
                      std::string& error);

// Reads every argument as one run (a directory omprof run -o wrote, or one profile). False, with
// one line "omprof: COMMAND: ..." on standard error, at the first that cannot be read.
bool read_scaling_series(const std::vector<std::string>& inputs, const std::string& region,
                         const char* command, std::vector<ScalingRun>& runs);

}  // namespace omprof::viewer
