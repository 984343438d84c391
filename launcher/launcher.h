// `omprof run`: starts the program with the collector preloaded, waits for it, forwards
// termination signals, exits with the program's status, and prints where the profile went.
#pragma once

#include <string>
#include <vector>

#include "proto/options.h"

namespace omprof::launcher {

struct RunOptions {
  std::string output_dir = ".";
  uint64_t rate_hz = options::kRate.default_value;
  std::string clock;  // "" = task where perf_event_open is permitted, else cpu
  std::string signal = options::kSignalDefault;
  uint64_t max_depth = options::kMaxDepth.default_value;
  uint64_t interval_ms = options::kInterval.default_value;   // the timeline's
  uint64_t event_min_ms = options::kEventMin.default_value;  // timeline events
  uint64_t max_contexts = options::kMaxContexts.default_value;
  bool children = false;
  bool symbolize = false;  // symbolize in the process (binaries that will not exist later)
  std::string omp_runtime = "native";  // native (or auto) | libomp
  std::string mpi = "auto";            // auto | on | off: preload the MPI wrappers
  bool mpi_cpu = false;                // exact thread CPU time per MPI call
  bool region_cpu = false;             // exact thread CPU time per explicit region
  bool region_counters = false;        // exact counter events per explicit region
  std::string counters;                // --counters LIST
  bool counters_given = false;         // --counters was given (an empty list is an error)
  std::vector<std::string> command;
};

// Returns the exit status omprof should exit with.
int run_program(const RunOptions& opt, const std::string& self_path);

}  // namespace omprof::launcher
