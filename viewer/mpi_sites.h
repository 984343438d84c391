// `omprof report --mpi`: time in MPI by call site, Dumpi-style. Each row is one intercepted MPI
// call made from one place in the program (the caller's function and line) inside one explicit
// region path: its exact call count and wall time (ThreadProfile.wait, states 0x2000 + call),
// and its CPU time, exact when the run measured it (`omprof run --mpi-cpu`), else estimated from
// the CPU-clock samples taken inside the call from the same place. Over several ranks: the
// ranks that made the call, and min/avg/max of wall time over them (never zero-filled).
// Memory grows with ranks x call sites, never with samples.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "proto/profile_reader.h"
#include "viewer/table.h"

namespace omprof::viewer {

struct MpiSite {
  uint32_t call = 0;     // proto/mpi_calls.h
  std::string function;  // the caller; "" when its frame is unknown
  std::string file;
  int64_t line = 0;
  std::string region;  // explicit region path ("" outside every region)
  bool operator<(const MpiSite& o) const {
    return std::tie(call, function, file, line, region) <
           std::tie(o.call, o.function, o.file, o.line, o.region);
  }
};

struct MpiSiteNumbers {
  uint64_t calls = 0, wall_ns = 0;
  uint64_t cpu_ns = 0;      // exact, when RankMpiSites::cpu_exact
  uint64_t samples = 0;     // samples inside the call from this site
  uint64_t sampled_ns = 0;  // their time: CPU time with a CPU clock
};

// How a rank's CPU time in MPI is known.
enum class MpiCpu { kExact, kSampled, kNone };

struct RankMpiSites {
  int rank = -1;
  MpiCpu cpu = MpiCpu::kNone;
  uint64_t period_ns = 0;
  bool exact = false;  // the profile has exact MPI waits (omprof's MPI wrappers ran)
  std::map<MpiSite, MpiSiteNumbers> sites;
};

RankMpiSites mpi_sites(const format::Profile& p);

// The merged table, sorted by total wall time; `top` rows (0: all). Text output says first how
// CPU time was measured; CSV columns are in docs/format.md.
// The merged call sites, by wall time (no rows when no MPI call was measured).
Table mpi_sites_table(const std::vector<RankMpiSites>& ranks, size_t top);
void print_mpi_sites(std::ostream& out, const std::vector<RankMpiSites>& ranks, size_t top,
                     Format format);

}  // namespace omprof::viewer
