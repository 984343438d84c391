// Process-wide collector state (ordinary context). Lives in storage that is never destroyed:
// shutdown may run after C++ static destructors. What the signal handler shares is in
// handler/sampling_state.h.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/config.h"
#include "collector/handler/sampling_state.h"

namespace omprof {

struct Runtime {
  Config config;
  std::atomic<bool> active{false};  // this process is being profiled
  std::atomic<uint64_t> timer_create_failures{0};
  uint64_t start_mono_ns = 0;
  uint64_t start_unix_ns = 0;
};

Runtime& runtime();

using handler::monotonic_ns;
using handler::thread_cpu_ns;

}  // namespace omprof
