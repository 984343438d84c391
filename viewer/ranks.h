// Profiles of several MPI ranks read together (`omprof report DIR`): each rank's profile is
// reduced to a few numbers (RankNumbers) as it is read, so memory grows with ranks x region
// paths, never with samples; then the union over ranks per region path (min/avg/max, the ranks
// of min and max), and the POP efficiencies (docs/semantics.md, "MPI").
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "viewer/model.h"
#include "viewer/table.h"

namespace omprof::viewer {

// Time split of a rank or of a region on a rank, in thread-seconds (ns): work (the program's
// own code: "computation"), OpenMP wait (every OpenMP wait state) and MPI wait (inside MPI).
struct TimeSplit {
  uint64_t work_ns = 0, omp_wait_ns = 0, mpi_wait_ns = 0;
  uint64_t total_ns() const { return work_ns + omp_wait_ns + mpi_wait_ns; }
  // Computation as wall time: `elapsed` times the share of thread time spent working (for a
  // single-threaded rank, its work time).
  double computation_ns(double elapsed_ns) const;
  double outside_mpi_ns(double elapsed_ns) const;
};

struct RankRegion {
  int64_t calls = 0;
  uint64_t incl_ns = 0;  // inclusive wall time, max over the rank's threads
  uint64_t self_ns = 0;
  TimeSplit split;
};

struct RankNumbers {
  int rank = -1;
  std::string file;
  uint64_t elapsed_ns = 0;
  uint64_t samples = 0;
  uint32_t threads = 0;
  TimeSplit split;
  std::map<std::string, RankRegion> regions;  // by path "outer/inner"
};

RankNumbers rank_numbers(const Model& m);

// POP efficiencies over ranks (docs/semantics.md): load balance = avg/max computation,
// communication efficiency = max computation / elapsed, parallel efficiency = their product,
// split into MPI (time outside MPI) and OpenMP (the rest) parts.
struct Efficiencies {
  double load_balance = 0, communication = 0, parallel = 0, mpi_parallel = 0, omp_parallel = 0;
};
Efficiencies efficiencies(const std::vector<double>& computation_ns,
                          const std::vector<double>& outside_mpi_ns, double elapsed_ns);

// The union of the ranks' region paths with min/avg/max over the ranks that ran each.
struct ReducedRegion {
  std::string path;
  std::vector<int> ranks;  // participating ranks
  double incl_min = 0, incl_avg = 0, incl_max = 0;
  int incl_min_rank = -1, incl_max_rank = -1;
  double comp_min = 0, comp_avg = 0, comp_max = 0;
  int comp_min_rank = -1, comp_max_rank = -1;
  double self_avg = 0, calls_avg = 0, omp_wait_avg = 0, mpi_wait_avg = 0;
  Efficiencies eff;
};
std::vector<ReducedRegion> reduce_regions(const std::vector<RankNumbers>& ranks);

// Ranks whose region paths differ from the union (the strict check), e.g. "1,3".
std::vector<int> ranks_missing_paths(const std::vector<RankNumbers>& ranks);

void print_ranks_summary(std::ostream& out, const std::vector<RankNumbers>& ranks);
Table ranks_table(const std::vector<RankNumbers>& ranks);
Table reduced_regions_table(const std::vector<ReducedRegion>& regions, size_t rank_count,
                            Format format);

}  // namespace omprof::viewer
