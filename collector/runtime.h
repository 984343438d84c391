// Process-wide collector state. Lives in storage that is never destroyed: shutdown may run
// after C++ static destructors, and handlers may fire on threads still alive at that point.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/config.h"

namespace omprof {

struct Runtime {
  Config config;
  std::atomic<bool> active{false};   // this process is being profiled
  std::atomic<bool> stopped{false};  // shutdown began: handlers record nothing more
  std::atomic<int> handlers_in_flight{0};
  std::atomic<uint64_t> forwarded_signals{0};
  std::atomic<uint64_t> timer_create_failures{0};
  uint64_t start_mono_ns = 0;
  uint64_t start_unix_ns = 0;
};

Runtime& runtime();

uint64_t monotonic_ns();
uint64_t thread_cpu_ns();

}  // namespace omprof
