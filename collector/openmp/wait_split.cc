#include "collector/openmp/wait_split.h"

#include <algorithm>

namespace omprof::openmp {

BarrierSplit split_by_longest_span(uint64_t wait_ns, uint64_t own_span_ns,
                                   uint64_t longest_span_ns) {
  const uint64_t imbalance = longest_span_ns > own_span_ns ? longest_span_ns - own_span_ns : 0;
  BarrierSplit s;
  s.waiting_ns = std::min(imbalance, wait_ns);
  s.sync_ns = wait_ns - s.waiting_ns;
  return s;
}

BarrierSplit split_at_last_arrival(uint64_t ns, uint64_t start_ns, uint64_t end_ns,
                                   uint64_t last_arrival_ns) {
  BarrierSplit s;
  s.waiting_ns = ns;
  if (!ns || !last_arrival_ns || end_ns <= start_ns) return s;
  const uint64_t from = std::max(last_arrival_ns, start_ns);
  const uint64_t sync_wall = end_ns > from ? end_ns - from : 0;
  s.sync_ns = share_of(ns, sync_wall, end_ns - start_ns);
  s.waiting_ns = ns - s.sync_ns;
  return s;
}

JoinSplit split_worker_join(uint64_t total_ns, uint64_t first_start_ns, bool region_ended,
                            uint64_t region_end_ns) {
  JoinSplit s;
  s.barrier_ns = total_ns;
  if (region_ended) {
    const uint64_t at_barrier = region_end_ns > first_start_ns ? region_end_ns - first_start_ns : 0;
    s.barrier_ns = std::min(at_barrier, total_ns);
  }
  s.idle_ns = total_ns - s.barrier_ns;
  return s;
}

AfterRegionEnd split_after_region_end(uint64_t off_ns, uint64_t end_ns, uint64_t now_ns,
                                      uint64_t next_fork_ns) {
  const uint64_t woken_from =
      next_fork_ns > end_ns && next_fork_ns < now_ns ? next_fork_ns : now_ns;
  AfterRegionEnd s;
  s.woken_ns = std::min(now_ns - woken_from, off_ns);
  s.idle_ns = std::min(woken_from - end_ns, off_ns - s.woken_ns);
  s.rest_ns = off_ns - s.woken_ns - s.idle_ns;
  return s;
}

JoinOverhead join_overhead(uint64_t off_ns, uint64_t start_ns, uint64_t barrier_end_ns,
                           uint64_t all_begun_ns, uint64_t body_ns, uint64_t all_ended_ns) {
  JoinOverhead o;
  if (barrier_end_ns <= start_ns) return o;
  const uint64_t wall = barrier_end_ns - start_ns;
  const uint64_t fork_done = all_begun_ns ? all_begun_ns + body_ns : barrier_end_ns;
  const uint64_t fork_wall = std::min(fork_done > start_ns ? fork_done - start_ns : 0, wall);
  const uint64_t sync_from = std::max(all_ended_ns ? all_ended_ns : barrier_end_ns, start_ns);
  const uint64_t sync_wall =
      std::min(barrier_end_ns > sync_from ? barrier_end_ns - sync_from : 0, wall - fork_wall);
  const uint64_t total = share_of(off_ns, fork_wall + sync_wall, wall);
  o.fork_ns = share_of(off_ns, fork_wall, wall);  // <= total: the share grows with the part
  o.release_ns = total - o.fork_ns;
  return o;
}

uint64_t join_overhead_ns(uint64_t off_ns, uint64_t start_ns, uint64_t barrier_end_ns,
                          uint64_t all_begun_ns, uint64_t body_ns, uint64_t all_ended_ns) {
  const JoinOverhead o =
      join_overhead(off_ns, start_ns, barrier_end_ns, all_begun_ns, body_ns, all_ended_ns);
  return o.fork_ns + o.release_ns;
}

GuardDecision guard_after_window(uint64_t span_ns, uint64_t off_ns, uint32_t trips) {
  GuardDecision d;
  if (span_ns >= kGuardMinSpanNs || off_ns * 1000 >= span_ns * kGuardOffCpuPerMille) return d;
  d.stop = true;
  d.pause_waits = kGuardPause << std::min<uint32_t>(trips, 6);
  d.trips = trips + 1;
  return d;
}

uint64_t off_cpu_ns(uint64_t start_ns, uint64_t cpu_start_ns, uint64_t end_ns,
                    uint64_t cpu_end_ns) {
  const uint64_t wall = end_ns > start_ns ? end_ns - start_ns : 0;
  const uint64_t cpu = cpu_end_ns > cpu_start_ns ? cpu_end_ns - cpu_start_ns : 0;
  return wall > cpu ? wall - cpu : 0;
}

uint64_t share_of(uint64_t ns, uint64_t part, uint64_t whole) {
  return uint64_t((unsigned __int128)ns * part / whole);
}

}  // namespace omprof::openmp
