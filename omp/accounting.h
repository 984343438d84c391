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

// How the profile measured its threads' time (from its header).
struct Measurement {
  bool exact_waits = false;    // OMPT: OpenMP waits timed exactly (Header.exact_waits)
  bool off_cpu_waits = false;  // libgomp: waits measured off the CPU (Header.off_cpu_waits)
  bool taskwait_exact = true;  // taskwait and taskgroup waits among the exact ones (< 1.7)
  bool cpu_clock = true;       // samples count CPU time: what they miss was off the CPU
};

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
// The thread's time off the CPU is spread over its samples in `state` (work, and waits it
// samples such as a taskwait; on libgomp not the waits whose time off the CPU was measured).
bool takes_off_cpu_time(const Measurement& m, uint32_t state);
// The thread's life minus what its samples and intervals account for is off-CPU time to place
// (CPU clocks with measured intervals only: otherwise the samples hold all of it).
bool places_off_cpu_time(const Measurement& m, bool mpi_exact);

// A sample the thread's off-CPU time may spread over.
struct OffCpuDonor {
  uint64_t node = 0;  // explicit region node
  uint32_t state = 0;
  uint64_t weight_ns = 0;
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
// (regions/off_cpu.h), spread over its donors in proportion to their weight; the rest goes
// outside regions, over the donors there when the thread has explicit regions of its own, else
// over all of them (a worker inherits its master's regions: one sample taken outside them must
// not take a whole run's preemption).
std::vector<OffCpuPart> place_thread_off_cpu(uint64_t off_cpu_ns,
                                             const std::map<uint64_t, uint64_t>& self_wall_ns,
                                             const std::map<uint64_t, uint64_t>& accounted_ns,
                                             const std::vector<OffCpuDonor>& donors);

}  // namespace omprof::omp
