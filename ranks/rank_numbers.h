// One MPI rank reduced to the few numbers the cross-rank summary needs: its time split (work,
// OpenMP wait, MPI wait) as a whole and per explicit-region path, with the regions' inclusive
// and self time and calls. Computed by the same RankBuilder from the collector's memory (the
// in-job summary, at MPI_Finalize) and from a profile (`omprof report DIR`), so both give the
// same numbers. Pure C++: no MPI, no protobuf (it is linked into libomprof.so).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "omp/accounting.h"
#include "regions/summary.h"

namespace omprof::ranks {

// Thread time in ns: work (the program's own code: "computation"), OpenMP wait (every OpenMP
// wait state) and MPI wait (inside an intercepted MPI call).
struct TimeSplit {
  uint64_t work_ns = 0, omp_wait_ns = 0, mpi_wait_ns = 0;
  uint64_t total_ns() const { return work_ns + omp_wait_ns + mpi_wait_ns; }
  void add(uint32_t state, uint64_t ns);
  TimeSplit& operator+=(const TimeSplit& o);
  // Computation as wall time: `elapsed` times the share of thread time spent working (for a
  // single-threaded rank, its work time).
  double computation_ns(double elapsed_ns) const;
  double outside_mpi_ns(double elapsed_ns) const;
};

struct RankRegion {
  int64_t calls = 0;     // all threads
  uint64_t incl_ns = 0;  // inclusive wall time, max over the rank's threads
  uint64_t self_ns = 0;  // self wall time, max over the rank's threads
  TimeSplit split;       // inclusive
};

struct RankNumbers {
  int rank = -1;
  std::string file;         // the profile it was read from ("" in the job)
  uint64_t elapsed_ns = 0;  // the POP window: from MPI_Init's return to MPI_Finalize
  uint64_t setup_ns = 0;    // thread time inside MPI_Init and MPI_Finalize (outside the window)
  uint64_t samples = 0;
  uint32_t threads = 0;  // the program's threads (not the MPI library's)
  TimeSplit split;
  std::map<std::string, RankRegion> regions;  // by path "outer/inner"
};

// A rank's POP window, ns since its run's start: from MPI_Init's return (`init_end_ns`; 0: the
// start) to MPI_Finalize's call (`finalize_start_ns`; 0: not yet or never, as in a running or
// killed process: the end of the run or snapshot), within the run's `duration_ns`. The one rule
// for the rank summary and the scaling analysis alike.
struct PopWindow {
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t ns() const { return end_ns - start_ns; }
};
PopWindow pop_window(uint64_t init_end_ns, uint64_t finalize_start_ns, uint64_t duration_ns);

// Builds a rank's numbers the way the viewer's model attributes time (viewer/model.cc): exact
// waits replace the samples that saw the same waits; on a thread with exact MPI waits, samples
// inside MPI only repeat them; with a CPU clock, the thread time that neither samples nor exact
// waits account for is off-CPU work, spread over the thread's work in proportion.
class RankBuilder {
 public:
  // `duration_ns`: the end of the run, or of the snapshot (threads still running end there).
  RankBuilder(const omp::Measurement& measurement, uint64_t duration_ns);
  // The POP window, ns since the run start (default: the whole run). Time inside MPI_Init and
  // MPI_Finalize is left out of the time split (it is `setup_ns`).
  void set_window(uint64_t start_ns, uint64_t end_ns);
  // One of the program's threads; `end_ns` 0 while it still runs.
  void begin_thread(uint64_t start_ns, uint64_t end_ns);
  // A sampled context (state already resolved: omp::resolve_state; `off_cpu_seen_ns`: the time
  // off the CPU its samples saw, Sample.off_cpu_seen_ns) and an exact wait.
  void sample(uint32_t state, uint64_t region_node, uint64_t count, uint64_t weight_ns,
              uint64_t off_cpu_seen_ns = 0);
  void wait(uint32_t state, uint64_t region_node, uint64_t weight_ns);
  // The thread's exact self wall time in a region node (its RegionStats): off-CPU time is placed
  // in the regions first (regions/off_cpu.h).
  void region_self_wall(uint64_t region_node, uint64_t ns);
  void end_thread();
  // `rows`: the region summary (regions::summarize: preorder, parents first).
  RankNumbers finish(int rank, const std::vector<regions::SummaryRow>& rows) const;

 private:
  struct Item {
    uint32_t state;
    uint64_t node, count, weight_ns, off_cpu_seen_ns;
  };
  void add(uint64_t node, uint32_t state, uint64_t ns);
  void add_off_cpu_time(uint64_t accounted_ns, const std::map<uint64_t, uint64_t>& by_node,
                        const std::vector<omp::OffCpuDonor>& donors);

  omp::Measurement measurement_;
  uint64_t duration_ns_, window_start_ns_ = 0, window_end_ns_;
  uint64_t setup_ns_ = 0;
  uint64_t start_ns_ = 0, end_ns_ = 0;
  std::vector<Item> samples_, waits_;
  std::map<uint64_t, uint64_t> self_wall_;
  uint32_t threads_ = 0;
  uint64_t sample_count_ = 0;
  TimeSplit total_;
  std::map<uint64_t, TimeSplit> by_node_;  // exclusive, by region node (0: no region)
};

}  // namespace omprof::ranks
