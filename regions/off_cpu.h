// Where a thread's unsampled time goes. With a CPU clock, samples and exact waits leave out the
// time a thread spent off the CPU outside waits (sleeping, blocked in a system call, preempted):
// its life minus what they account for. Explicit regions measure their self wall time exactly on
// each thread, so a region whose self wall time exceeds what its samples and waits account for
// was off the CPU for that difference: it gets that much first (all of it if the budget allows,
// else in proportion; regions whose samples exceed their self wall time return that excess,
// which is sampling noise, to the regions' budget). What remains is placed outside regions. Callers
// spread each part over the thread's work samples in that part (viewer/model.cc: under an <off-cpu>
// leaf), or keep it as one amount (ranks/rank_numbers.cc). Pure: no samples, no clock.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace omprof::regions {

struct OffCpuShares {
  std::map<uint64_t, uint64_t> by_node;  // region node -> off-CPU ns inside it (self)
  uint64_t outside_ns = 0;               // the rest: outside regions, or unplaced
};

// `off_cpu_ns`: the thread's unaccounted time. `self_wall_ns` and `accounted_ns`: per region
// node (0 excluded), the thread's exact self wall time and what its samples and exact waits
// account for there.
// `total` split in proportion to `weights` (whose sum is not 0): each part rounded down, the
// last taking what rounding left, so the parts add up to `total` exactly. The viewer and the
// MPI summary split the same way, so their sums agree to the nanosecond.
std::vector<uint64_t> proportional_parts(uint64_t total, const std::vector<uint64_t>& weights);

OffCpuShares place_off_cpu(uint64_t off_cpu_ns, const std::map<uint64_t, uint64_t>& self_wall_ns,
                           const std::map<uint64_t, uint64_t>& accounted_ns);

}  // namespace omprof::regions
