#include "regions/off_cpu.h"

#include <algorithm>

namespace omprof::regions {

namespace {
// total * part / whole rounded down, exactly (a 128-bit product: no double beyond uint64_t's
// range, whatever a file holds); part <= whole, whole > 0.
uint64_t scaled(uint64_t total, uint64_t part, unsigned __int128 whole) {
  return uint64_t(static_cast<unsigned __int128>(total) * part / whole);
}
}  // namespace

std::vector<uint64_t> proportional_parts(uint64_t total, const std::vector<uint64_t>& weights) {
  unsigned __int128 sum = 0;
  for (uint64_t w : weights) sum += w;
  std::vector<uint64_t> parts(weights.size());
  uint64_t given = 0;
  for (size_t k = 0; k < weights.size(); ++k) {
    const uint64_t left = total - given;
    parts[k] = k + 1 == weights.size() ? left
               : sum == 0              ? 0
                                       : std::min(left, scaled(total, weights[k], sum));
    given += parts[k];
  }
  return parts;
}

OffCpuShares place_off_cpu(uint64_t off_cpu_ns, const std::map<uint64_t, uint64_t>& self_wall_ns,
                           const std::map<uint64_t, uint64_t>& accounted_ns) {
  OffCpuShares out;
  std::map<uint64_t, uint64_t> deficit;
  uint64_t total_deficit = 0, excess = 0;
  for (const auto& [node, wall] : self_wall_ns) {
    if (node == 0) continue;
    const auto it = accounted_ns.find(node);
    const uint64_t accounted = it == accounted_ns.end() ? 0 : it->second;
    if (wall <= accounted) {
      excess += accounted - wall;
      continue;
    }
    deficit[node] = wall - accounted;
    total_deficit += wall - accounted;
  }
  // A region whose samples happen to add up to more than its exact self wall time took that
  // excess from the thread's budget, but its deficit cannot go below zero: sampling noise would
  // then always shortchange the other regions (a sleeping region lost up to 5% of its time).
  // So regions may use the budget plus that excess; what lies outside them only the budget.
  const uint64_t for_regions = off_cpu_ns + excess;
  // Every deficit in full when that allows; else each in proportion (rounded down, the last
  // node taking the rounding so that all of it is placed).
  uint64_t given = 0;
  size_t k = 0;
  for (const auto& [node, d] : deficit) {
    ++k;
    uint64_t share = d;
    if (total_deficit > for_regions)
      share = k == deficit.size() ? for_regions - given : scaled(for_regions, d, total_deficit);
    if (share == 0) continue;
    out.by_node[node] = share;
    given += share;
  }
  out.outside_ns = off_cpu_ns > given ? off_cpu_ns - given : 0;
  return out;
}

}  // namespace omprof::regions
