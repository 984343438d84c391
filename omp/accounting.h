// How a thread's sampled contexts and measured intervals become its time: the accounting rules
// of docs/semantics.md ("Work and wait", "Off-CPU time"), written once for every reader (the
// viewer's model, viewer/model.cc, and the MPI rank numbers, ranks/rank_numbers.cc).
// Pure: states and nanoseconds in, decisions and parts out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace omprof::omp {

// How omprof measured a state's time (Header.state_measurement, format 1.20).
enum class Measure : uint8_t {
  kSampled,  // its samples hold its time
  kExact,    // measured intervals hold all of it; its samples repeat them
  kOffCpu,   // measured intervals hold its time off the CPU; its samples its time on the CPU
};
// The states first..last (codes, proto/state_codes.h) were measured `how`.
struct MeasuredStates {
  uint32_t first = 0;
  uint32_t last = 0;
  Measure how = Measure::kSampled;
};

// How the profile measured its threads' time (from its header).
struct Measurement {
  std::vector<MeasuredStates> states;  // a state in none of them is sampled
  // The samples' states were published by omprof's wrappers of the runtime's entry points
  // (libgomp, Header.wrapper_states), not by the runtime: the wrappers see neither the tasks the
  // runtime runs inside a wait nor a worker before its first region, and publish the runtime's
  // unnamed bookkeeping (format::kOverhead) only while a thread forks or joins
  // (omp::resolve_sampled_state reads stacks accordingly).
  bool wrapper_states = false;
  bool cpu_clock = true;  // samples count CPU time: what they miss was off the CPU

  Measure of(uint32_t state) const;
  bool any_measured() const { return !states.empty(); }
};

// What each runtime's adapter measures, the one place this is said: the collector writes it
// into the profile, and readers of profiles before 1.20 derive it from the header's flags
// (Header.exact_waits, taskwait_sampled, off_cpu_waits). OMPT (libomp) times its waits and the
// fork and join exactly (taskwaits too, before 1.7: `taskwait_exact`); omprof's libgomp wrappers
// time the waits that run no tasks whole, and the others' time off the CPU.
Measurement ompt_measurement(bool taskwait_exact);
// `task_creation_sleeps`: what task creation slept on the runtime's lock was measured (the
// collector's since 2026-11-28, written into its profiles' state_measurement; a profile from
// before format 1.20, which does not say, has none).
Measurement libgomp_measurement(bool task_creation_sleeps = true);
// No OpenMP waits measured: samples only (no runtime, or one omprof cannot see).
Measurement sampled_measurement();

// The state time is accounted in: the runtime's unnamed bookkeeping is the fork's and join's
// where omprof measured it so (exact intervals; on libgomp, whose wrappers know the fork,
// samples too). `interval`: a measured interval, not a sample.
uint32_t accounted_state(const Measurement& m, uint32_t state, bool interval);
// A sample in `state` (accounted_state) only repeats a wait that was measured (the measurement
// replaces it). `mpi_exact`: the thread's MPI calls were measured exactly.
bool repeats_measured_time(const Measurement& m, uint32_t state, bool mpi_exact);
// A measured interval that counts as the thread's time: MPI calls always, OpenMP waits when the
// profile measured them (on a runtime without it, the samples count instead).
bool measured_interval_counts(const Measurement& m, uint32_t state);
// The thread's time off the CPU is spread over its samples in `state`: not over the states whose
// time off the CPU was measured (Measure::kOffCpu). Samples that repeat exact intervals take
// none either, having no time, but they say where the thread was (omp::place_thread_off_cpu).
bool takes_off_cpu_time(const Measurement& m, uint32_t state);
// The thread's life minus what its samples and intervals account for is off-CPU time to place
// (CPU clocks with measured intervals only: otherwise the samples hold all of it).
bool places_off_cpu_time(const Measurement& m, bool mpi_exact);

// A sample the thread's off-CPU time may spread over.
struct OffCpuDonor {
  uint64_t node = 0;  // explicit region node
  uint32_t state = 0;
  uint64_t weight_ns = 0;
  uint64_t seen_ns = 0;  // the time off the CPU its samples saw (Sample.off_cpu_seen_ns)
};
// One part of the thread's off-CPU time: on a donor (its index; its node), or at the root of
// `node` (donor == kNoDonor: nothing in that part of the thread took the CPU). `state`: the
// donor's when it keeps off-CPU time (a taskwait), else <off-cpu>.
struct OffCpuPart {
  static constexpr size_t kNoDonor = ~size_t(0);
  size_t donor = kNoDonor;
  uint64_t node = 0;
  uint32_t state = 0;
  uint64_t ns = 0;
};
// `off_cpu_ns`: the thread's unaccounted time; `self_wall_ns`: its exact self wall time per
// explicit region node; `donors`: its samples that take off-CPU time (takes_off_cpu_time), in
// order. Each region first gets what its samples and intervals leave of its self wall time
// (regions/off_cpu.h); the rest goes outside regions, over the donors there when the thread
// has explicit regions of its own, else over all of them (a worker inherits its master's
// regions: one sample taken outside them must not take a whole run's preemption). Within each
// part, as much as its donors saw (seen_ns) is spread in proportion to what each saw: time off
// the CPU lands where it happened (a phase preempted on a busy machine, not one that ran
// alone); what they did not see (a profile before 1.22, noise) in proportion to their weight.
std::vector<OffCpuPart> place_thread_off_cpu(uint64_t off_cpu_ns,
                                             const std::map<uint64_t, uint64_t>& self_wall_ns,
                                             const std::map<uint64_t, uint64_t>& accounted_ns,
                                             const std::vector<OffCpuDonor>& donors);

}  // namespace omprof::omp
