// Collector configuration, read once from the environment at start-up (set by `omprof run`:
// proto/options.h is the contract). Invalid values disable profiling with one diagnostic line;
// they never change what the program does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/counter_events.h"
#include "proto/options.h"

namespace omprof {

// kTask: per-thread perf_event task-clock, CPU time like kCpu but not limited to kernel ticks.
enum class ClockKind { kCpu, kWall, kTask };

struct Config {
  ClockKind clock = ClockKind::kCpu;
  std::string clock_choice;  // why this clock (Header.clock_choice)
  uint32_t rate_hz = uint32_t(options::kRate.default_value);
  uint64_t period_ns = 1000000000ULL / options::kRate.default_value;
  int signo = 27;  // SIGPROF
  uint32_t max_depth = uint32_t(options::kMaxDepth.default_value);
  // Distinct (stack, context) entries per thread (a power of two), and frames per thread.
  uint32_t max_contexts = uint32_t(options::kMaxContexts.default_value);
  uint32_t frame_pool = uint32_t(options::kMaxContexts.default_value) * 32;
  uint32_t max_threads = uint32_t(options::kMaxThreads.default_value);
  uint64_t interval_ns = options::kInterval.default_value * 1000000;   // the timeline's
  uint64_t event_min_ns = options::kEventMin.default_value * 1000000;  // timeline events
  std::string output_dir = ".";
  std::string manifest;  // file the launcher reads to print its summary line
  bool mpi_cpu = false;  // exact thread CPU time per MPI call (options::env::kMpiCpu)
  // Task clock: switches per CPU-second above which a thread moves to the cpu clock; 0: never
  // (options::env::kClockFallback).
  uint64_t clock_fallback_per_cpu_s = 0;
  // The wall clock reads the TSC (collector/handler/wall_clock.h): options::env::kTsc, else
  // whether the kernel keeps time with the TSC.
  bool wall_clock_tsc = false;
  // Counted per thread (options::env::kCounters; collector/counters.h), at most kMaxCounters.
  std::vector<counters::EventSpec> counter_events;
};

// The kernel's clocksource ("tsc", "kvm-clock", ...; "" if unreadable).
std::string kernel_clocksource();

// Parses the OMPROF_* variables. Returns false with `error` set on an invalid value.
bool parse_config(Config& cfg, std::string& error);

}  // namespace omprof
