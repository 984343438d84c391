// `omprof report --regions`: the explicit-region tree with exact times (from the collector's
// timers) next to the sampled OpenMP Work/Wait of each region (samples carry their region).
#pragma once

#include <array>
#include <vector>

#include "regions/summary.h"
#include "viewer/model.h"
#include "viewer/table.h"

namespace omprof::viewer {

struct RegionRow {
  regions::SummaryRow timing;
  uint64_t work_ns = 0;  // sampled, inclusive of nested regions
  uint64_t wait_ns = 0;
  uint64_t mpi_ns = 0;       // the part of wait_ns inside MPI calls
  uint64_t overhead_ns = 0;  // the part of wait_ns that is OpenMP runtime bookkeeping
  // CPU time: exact (timing.cpu_sum_ns) or estimated from the CPU-clock samples taken in the
  // region (inclusive), with one standard error (sqrt(samples) periods).
  uint64_t cpu_ns = 0, cpu_err_ns = 0;
  // Load imbalance over the threads that ran in the region (those that opened it and the team
  // workers that inherited it), from each one's sampled work in it: (max - mean) / max, 0 with
  // fewer than two threads. Rough below kFewSamples samples.
  double imbalance = 0;
  uint32_t sampled_threads = 0;
  uint64_t samples = 0;
  // Counter events (format 1.16) attributed to the region by its samples: at its own level
  // (self) and in it with its nested regions (incl). Header.counter_event order.
  std::array<uint64_t, counters::kMaxCounters> counters_self{}, counters_incl{};
  // With --region-counters (Header.region_counters_exact, 1.19): the events read at the region's
  // begin and end by the threads that opened it, summed (not those of team workers that only
  // inherited it, whose events are in the sampled counts above), inclusive and self.
  std::array<int64_t, counters::kMaxCounters> exact_self{}, exact_incl{};
};

// How a profile knows its regions' CPU time: measured at begin/end (OMPROF_REGION_CPU=1, and
// every file before format 1.6), estimated from CPU-clock samples, or not at all (wall clock).
enum class RegionCpu { kExact, kSampled, kNone };
RegionCpu region_cpu_source(const format::Profile& p);

// The profile's region statistics merged over threads (regions::summarize), in preorder.
std::vector<regions::SummaryRow> region_summary(const format::Profile& p);
// Rows in preorder; the implicit root ("<no region>": samples outside every region) first.
std::vector<RegionRow> region_rows(const Model& m);
// With `max_rows` (the HTML page), only the `max_rows` regions of largest inclusive time and
// their enclosing regions are rows, in tree order, and one last row says how many were left out
// and their self time: a program with a million nested regions made a 390 MB page and 6 GB of
// memory.
Table region_tree_table(const Model& m, Format format, size_t max_rows = 0);
// The rows `region_tree_table` keeps under `max_rows`; `cut_self_ns` is the self time of the rest.
std::vector<RegionRow> largest_region_rows(std::vector<RegionRow> rows, size_t max_rows,
                                           size_t& cut, uint64_t& cut_self_ns);

}  // namespace omprof::viewer
