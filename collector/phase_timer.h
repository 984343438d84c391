// OMPROF_DEBUG=1: how long each phase of the collector's start and shutdown takes, on stderr
// (docs/performance.md, "Fixed cost per process").
#pragma once

#include <cstdio>
#include <cstdlib>

#include "collector/runtime.h"

namespace omprof {

class PhaseTimer {
 public:
  PhaseTimer() : on_(enabled()), start_(monotonic_ns()) {}
  void done(const char* phase) {
    if (!on_) return;
    const uint64_t now = monotonic_ns();
    std::fprintf(stderr, "omprof: debug: %s took %.2f ms\n", phase, double(now - start_) / 1e6);
    start_ = now;
  }

 private:
  static bool enabled() {
    const char* v = std::getenv("OMPROF_DEBUG");
    return v && *v == '1';
  }
  bool on_;
  uint64_t start_;
};

}  // namespace omprof
