// Collector configuration, read once from the environment (set by `omprof run`, see
// docs/usage.md for the variables). Invalid values disable profiling with one diagnostic line;
// they never change what the program does.
#pragma once

#include <cstdint>
#include <string>

namespace omprof {

// kTask: per-thread perf_event task-clock, CPU time like kCpu but not limited to kernel ticks.
enum class ClockKind { kCpu, kWall, kTask };

struct Config {
  bool enabled = false;
  ClockKind clock = ClockKind::kCpu;
  uint32_t rate_hz = 200;
  uint64_t period_ns = 5000000;
  int signo = 27;  // SIGPROF
  uint32_t max_depth = 256;
  uint32_t max_contexts = 16384;  // distinct (stack, context) entries per thread (power of two)
  uint32_t frame_pool = 0;        // frames per thread; 0 = max_contexts * 32
  uint32_t max_threads = 4096;
  std::string output_dir = ".";
  std::string manifest;  // file the launcher reads to print its summary line
};

// Parses the OMPROF_* variables. Returns false with `error` set on an invalid value.
bool parse_config(Config& cfg, std::string& error);

// Exposed for tests: parse one signal name ("SIGPROF", "PROF", "SIGRTMIN+3", "27").
int parse_signal(const std::string& s);

// A signal omprof can sample with: not KILL/STOP, not a fault signal.
bool usable_profiling_signal(int signo);

}  // namespace omprof
