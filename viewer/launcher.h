// `omprof run`: starts the program with the collector preloaded, waits for it, forwards
// termination signals, exits with the program's status, and prints where the profile went.
#pragma once

#include <string>
#include <vector>

namespace omprof::viewer {

struct RunOptions {
  std::string output_dir = ".";
  unsigned rate_hz = 200;
  std::string clock;  // "" = task where perf_event_open is permitted, else cpu
  std::string signal = "SIGPROF";
  unsigned max_depth = 256;
  unsigned max_contexts = 16384;
  bool children = false;
  bool symbolize = false;  // symbolize in the process (binaries that will not exist later)
  std::string omp_runtime = "auto";  // auto | native
  std::vector<std::string> command;
};

// Returns the exit status omprof should exit with.
int run_program(const RunOptions& opt, const std::string& self_path);

}  // namespace omprof::viewer
