// What the signal handler shares with the rest of the process: the sampling parameters (set
// once before the handler is installed) and the counters and flags that coordinate shutdown.
// In the signal handler: async-signal-safe (plain loads and lock-free atomics).
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

#include "collector/handler/wall_clock.h"

namespace omprof::handler {

struct SamplingState {
  uint64_t period_ns = 5000000;
  uint32_t max_depth = 256;
  int signo = 27;                    // SIGPROF
  bool time_handler = false;         // self-timing (OMPROF_TIME_HANDLER=1, for bench/)
  std::atomic<bool> stopped{false};  // shutdown began: handlers record nothing more
  std::atomic<int> handlers_in_flight{0};
  std::atomic<uint64_t> forwarded_signals{0};  // the program's own signals, passed on
  std::atomic<uint64_t> handler_calls{0};      // with time_handler
  std::atomic<uint64_t> handler_ns{0};
};

// Never destroyed: handlers may run after static destructors.
SamplingState& sampling_state();

inline uint64_t ns_of(const timespec& t) {
  return uint64_t(t.tv_sec) * 1000000000ULL + uint64_t(t.tv_nsec);
}
// CLOCK_MONOTONIC, read through the TSC where the kernel's clocksource is the TSC (wall_clock.h).
[[gnu::always_inline]] inline uint64_t monotonic_ns() {
  return wall_clock::now_ns();
}
inline uint64_t thread_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return ns_of(t);
}

}  // namespace omprof::handler
