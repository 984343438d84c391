#include "omp/accounting.h"

#include <algorithm>

#include "omp/states.h"
#include "proto/state_codes.h"
#include "regions/off_cpu.h"

namespace omprof::omp {

Measure Measurement::of(uint32_t state) const {
  for (const MeasuredStates& r : states)
    if (state >= r.first && state <= r.last) return r.how;
  return Measure::kSampled;
}

Measurement ompt_measurement(bool taskwait_exact) {
  using namespace format;
  Measurement m;
  m.states = {{kWaitBarrier, kWaitBarrierTeams, Measure::kExact},
              {kWaitMutex, kWaitOrdered, Measure::kExact},
              {kIdle, kOverhead, Measure::kExact},
              {kIdleDerived, kIdleDerived, Measure::kExact},
              {kOverheadBarrier, kOverheadBarrier, Measure::kExact}};
  if (taskwait_exact) m.states.push_back({kWaitTaskwait, kWaitTaskgroup, Measure::kExact});
  return m;
}

Measurement libgomp_measurement(bool task_creation_sleeps) {
  using namespace format;
  Measurement m;
  // Locks, critical, atomic and ordered run no tasks: timed whole (the wrappers' own test,
  // is_measured_whole_on_libgomp; Accounting.EachRuntimesMeasurement... checks they agree).
  // Barriers, taskwaits, idle, the fork and the join: their time off the CPU (collector/libgomp/);
  // task creation, what it slept on the runtime's task lock (its preemption there is the
  // thread's other time off the CPU: <off-cpu> work).
  m.states = {{kWaitMutex, kWaitOrdered, Measure::kExact},
              {kWaitBarrier, kWaitBarrierTeams, Measure::kOffCpu},
              {kWaitTaskwait, kWaitTaskgroup, Measure::kOffCpu},
              {kIdle, kOverhead, Measure::kOffCpu},
              {kIdleDerived, kIdleDerived, Measure::kOffCpu},
              {kOverheadFork, kOverheadFork, Measure::kOffCpu},
              {kOverheadBarrier, kOverheadBarrier, Measure::kOffCpu}};
  if (task_creation_sleeps) m.states.push_back({kOverheadTask, kOverheadTask, Measure::kOffCpu});
  m.wrapper_states = true;
  return m;
}

Measurement sampled_measurement() {
  return Measurement{};
}

uint32_t accounted_state(const Measurement& m, uint32_t state, bool interval) {
  if ((interval || m.wrapper_states) && state == format::kOverhead) return format::kOverheadFork;
  return state;
}

bool repeats_measured_time(const Measurement& m, uint32_t state, bool mpi_exact) {
  if (is_mpi(state)) return mpi_exact;
  return m.of(state) == Measure::kExact;
}

bool measured_interval_counts(const Measurement& m, uint32_t state) {
  return is_mpi(state) || m.any_measured();
}

bool takes_off_cpu_time(const Measurement& m, uint32_t state) {
  return m.of(state) != Measure::kOffCpu;
}

bool places_off_cpu_time(const Measurement& m, bool mpi_exact) {
  return m.cpu_clock && (m.any_measured() || mpi_exact);
}

namespace {

// `ns` over the donors `over`: what they saw by what each saw, the rest by weight.
void spread(const std::vector<size_t>& over, const std::vector<OffCpuDonor>& donors, uint64_t node,
            uint64_t ns, std::vector<OffCpuPart>& parts) {
  std::vector<uint64_t> weights, seen;
  uint64_t over_ns = 0, seen_ns = 0;
  for (size_t i : over) {
    weights.push_back(donors[i].weight_ns);
    seen.push_back(donors[i].seen_ns);
    over_ns += donors[i].weight_ns;
    seen_ns += donors[i].seen_ns;
  }
  if (over_ns == 0 && seen_ns == 0) {
    parts.push_back({OffCpuPart::kNoDonor, node, kStateOffCpu, ns});
    return;
  }
  const uint64_t where_seen = std::min(ns, seen_ns);
  std::vector<uint64_t> shares(over.size(), 0);
  if (where_seen) shares = regions::proportional_parts(where_seen, seen);
  if (ns > where_seen) {
    const std::vector<uint64_t> rest =
        regions::proportional_parts(ns - where_seen, over_ns ? weights : seen);
    for (size_t k = 0; k < shares.size(); ++k) shares[k] += rest[k];
  }
  for (size_t k = 0; k < over.size(); ++k) {
    if (!shares[k]) continue;
    const OffCpuDonor& d = donors[over[k]];
    parts.push_back(
        {over[k], d.node, keeps_off_cpu_time(d.state) ? d.state : kStateOffCpu, shares[k]});
  }
}

}  // namespace

std::vector<OffCpuPart> place_thread_off_cpu(uint64_t off_cpu_ns,
                                             const std::map<uint64_t, uint64_t>& self_wall_ns,
                                             const std::map<uint64_t, uint64_t>& accounted_ns,
                                             const std::vector<OffCpuDonor>& donors) {
  std::vector<OffCpuPart> parts;
  if (off_cpu_ns == 0) return parts;
  std::map<uint64_t, std::vector<size_t>> by_node;
  std::vector<size_t> all;
  for (size_t i = 0; i < donors.size(); ++i) {
    by_node[donors[i].node].push_back(i);
    all.push_back(i);
  }
  const regions::OffCpuShares shares =
      regions::place_off_cpu(off_cpu_ns, self_wall_ns, accounted_ns);
  for (const auto& [node, ns] : shares.by_node) spread(by_node[node], donors, node, ns, parts);
  if (shares.outside_ns) {
    const auto outside = by_node.find(0);
    const bool own_outside = !self_wall_ns.empty() && outside != by_node.end();
    spread(own_outside ? outside->second : all, donors, 0, shares.outside_ns, parts);
  }
  return parts;
}

}  // namespace omprof::omp
