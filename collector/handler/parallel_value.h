// What omprof stores in a parallel region's ompt_data_t (parallel_data->value), written by the
// OMPT tool at the fork and read by the handler. Pure bit packing: async-signal-safe.
//   bits  0-19  the fork record id (0 = none)
//   bits 20-42  the master's explicit-region node at the fork, inherited by the team's workers
//               (0 past 2^23 nodes)
//   bits 43-62  the region instance (for exact waits). libomp 14 ends a worker's implicit task
//               only when the next region wakes it, so a worker waiting between regions still
//               sees the last region: it is idle iff that instance has ended (region_ends.h).
// Written once, at the fork: the value lives in libomp's team structure, next to what its
// barriers spin on.
#pragma once

#include <cstdint>

namespace omprof::handler::parallel_value {

constexpr uint64_t kForkIdMask = (uint64_t(1) << 20) - 1;
constexpr int kNodeShift = 20;
constexpr uint64_t kNodeMask = (uint64_t(1) << 23) - 1;
constexpr int kInstanceShift = 43;
constexpr uint64_t kInstanceMask = (uint64_t(1) << 21) - 1;

inline uint64_t pack(uint64_t fork_id, uint64_t node, uint64_t instance) {
  return (fork_id & kForkIdMask) | ((node <= kNodeMask ? node : 0) << kNodeShift) |
         ((instance & kInstanceMask) << kInstanceShift);
}
inline uint64_t fork_id(uint64_t v) {
  return v & kForkIdMask;
}
inline uint32_t node(uint64_t v) {
  return uint32_t((v >> kNodeShift) & kNodeMask);
}
inline uint32_t instance(uint64_t v) {
  return uint32_t((v >> kInstanceShift) & kInstanceMask);
}

}  // namespace omprof::handler::parallel_value
