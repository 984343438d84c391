// Metrics derived from a table row's counter events, for the region and parallel-region tables:
// IPC and misses per 1000 instructions where their events are counted
// (counters::derived_metrics), and each other event's rate per second of the row's thread time
// ("page-faults/s"). Counts and times read exactly give exact metrics; any sampled input gives
// the row's metrics one relative standard error, 1/sqrt(samples) (the events taken to follow
// the samples, as their attribution assumes: docs/semantics.md, "Counters").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "proto/counter_events.h"

namespace omprof::viewer {

struct RowCounts {
  std::array<double, counters::kMaxCounters> counts{};  // Header.counter_event order
  double thread_ns = 0;  // the row's thread time the rates are per (0: no rates)
  bool counts_exact = false, time_exact = false;
  uint64_t samples = 0;  // the row's samples, for the error of sampled inputs
};

// The derived columns for `events`, then "derived_err%" (empty: no derived metric).
std::vector<std::string> derived_columns(const std::vector<std::string>& events);
// The row's cells for derived_columns(events), in order ("-" where a denominator is 0).
void derived_cells(const std::vector<std::string>& events, const RowCounts& r,
                   std::vector<std::string>& cells);

}  // namespace omprof::viewer
