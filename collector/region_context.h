// What the rest of the collector needs from explicit regions: the calling thread's region
// context (signal handler, OpenMP fork), the OpenMP inheritance hook, and the data to write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "regions/summary.h"

namespace omprof {

// Async-signal-safe: the calling thread's current region node (0 = implicit root).
uint32_t current_region_node();

// OpenMP: a worker entering a team inherits the master's region at the fork (0 to clear).
void inherit_region_context(uint32_t node);

struct RegionData {
  std::vector<std::pair<uint32_t, regions::NodeInfo>> nodes;  // node id -> parent, region
  std::vector<std::string> names;                             // index = region id - 1
  std::vector<regions::ThreadSnapshot> threads;
  int64_t window_start_ns = 0;  // relative to the run start (moves with omprof_region_reset)
};
// Region calls refused because a signal handler made them while omprof's own code ran on the
// same thread (OMPROF_ERR_REENTERED).
uint64_t refused_region_calls();
// Whether regions measure thread CPU time exactly (OMPROF_REGION_CPU=1); else wall time only.
bool region_cpu_measured();
// Whether explicit regions read the counter events at begin and end (--region-counters).
bool region_counters_measured();
// Snapshot for the profile (open regions included, marked active).
// Open regions are measured up to `end_ns` (since the start of the run) if given, else now.
RegionData region_data(int64_t end_ns = -1);
// The snapshot merged over threads (regions::summarize): the live summaries' rows.
std::vector<regions::SummaryRow> summary_rows(const RegionData& d);

}  // namespace omprof
