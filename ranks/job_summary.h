// The cross-rank summary of a job (docs/semantics.md, "MPI"): per explicit-region path, over
// the ranks that ran it (never zero-filled), min/avg/max of inclusive time and computation with
// the ranks of min and max, averages of self time, calls, OpenMP wait and MPI wait; the POP
// efficiencies of the whole run and of each region; the ranks whose region tree differs from
// the union (the strict check).
//
// Each rank's numbers become one Partial per path; partials combine pairwise (commutative,
// associative up to floating-point rounding, ties to the lowest rank), so the same code reduces
// a directory of rank profiles offline and runs as the MPI reduction operator in the job.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "ranks/rank_numbers.h"

namespace omprof::ranks {

// Trivially copyable: MPI moves arrays of them as bytes.
struct Partial {
  int64_t ranks = 0;  // participating ranks
  double incl_min = 0, incl_max = 0, incl_sum = 0;
  int64_t incl_min_rank = -1, incl_max_rank = -1;
  double comp_min = 0, comp_max = 0, comp_sum = 0;
  int64_t comp_min_rank = -1, comp_max_rank = -1;
  double self_sum = 0, outside_mpi_sum = 0;
  double work_sum = 0, omp_wait_sum = 0, mpi_wait_sum = 0;  // thread time
  int64_t calls_min = 0, calls_max = 0;
  double calls_sum = 0;
  double threads_sum = 0, samples_sum = 0;
  double setup_sum = 0, setup_max = 0;  // the whole run: time inside MPI_Init and MPI_Finalize
};

// A rank's partial for one region, and for its whole run (inclusive time = elapsed).
Partial region_partial(int rank, const RankRegion& r);
Partial run_partial(const RankNumbers& r);
// inout := in (+) inout.
void combine(const Partial& in, Partial& inout);

struct Efficiencies {
  double load_balance = 0, communication = 0, parallel = 0, mpi_parallel = 0, omp_parallel = 0;
};

struct ReducedRegion {
  std::string path;
  Partial p;
  Efficiencies eff;
  double avg(double sum) const { return p.ranks ? sum / double(p.ranks) : 0; }
};

struct JobSummary {
  int64_t size = 0;   // ranks in the job (MPI_COMM_WORLD)
  std::string scope;  // what the numbers cover, e.g. "to MPI_Finalize"
  Partial run;        // inclusive time: each rank's elapsed time
  Efficiencies eff;
  std::vector<ReducedRegion> regions;    // canonical order: sorted by path
  std::vector<int64_t> differing_ranks;  // region paths differ from the union (strict check)
};

// POP efficiencies from a reduced partial (docs/semantics.md): load balance = avg/max
// computation, communication efficiency = max computation / elapsed (the longest inclusive
// time), parallel efficiency = their product; the MPI part from the time outside MPI, the
// OpenMP part = parallel / MPI part.
Efficiencies efficiencies(const Partial& p);

// Every region path some rank ran, sorted (the canonical order, whatever the ranks' own).
std::vector<std::string> union_of_paths(const std::vector<RankNumbers>& ranks);

// Offline: the summary of these ranks (sorted by rank), a job of `size` ranks.
JobSummary summarize_ranks(const std::vector<RankNumbers>& ranks, int64_t size);
// After the partials are reduced: names, efficiencies.
void finish(JobSummary& s, const std::vector<std::string>& paths,
            const std::vector<Partial>& region_partials);

// Text and CSV, for the in-job files and `omprof report`; the CSV columns are in docs/format.md.
void write_text(std::ostream& out, const JobSummary& s);  // header, then regions
void write_header(std::ostream& out, const JobSummary& s);
void write_regions_text(std::ostream& out, const JobSummary& s);
void write_regions_csv(std::ostream& out, const JobSummary& s);

}  // namespace omprof::ranks
