// How busy the machine was while the program ran (issue 37, item 4): a team member that waits
// for a CPU makes the others wait at the next barrier, and the profile must say so. Per thread,
// its time on the run queue (/proc/.../schedstat) and its involuntary context switches; for the
// run, the CPUs online and allowed, the hypervisor's steal share and the load average.
// Ordinary context (start-up, thread exit, shutdown); open/read into stack buffers, no stdio.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace omprof {

// A thread's scheduling at its end (0 when unknown): its context switches, the time it was
// runnable but waited for a CPU, and the CPUs it may run on, a bit mask of the first 1,024
// (journal::ThreadRecord::cpu_mask).
struct ThreadScheduling {
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  uint64_t run_delay_ns = 0;
  uint64_t cpu_mask[16] = {};
};
// The calling thread's (getrusage, its schedstat).
ThreadScheduling own_scheduling();
// Another live thread's of this process (/proc/self/task/TID/).
ThreadScheduling scheduling_of(pid_t tid);

// The runtime's settings in the environment at start (OMP_*, KMP_*, GOMP_*), "NAME=value".
// Read once, at collector start (note_machine_at_start).
const std::vector<std::string>& omp_settings();

struct MachineLoad {
  uint32_t cpus_online = 0;
  uint32_t cpus_allowed = 0;    // in the process's affinity mask at start
  uint32_t steal_permille = 0;  // of all CPUs' time during the run, taken by the hypervisor
  uint32_t load_avg_milli = 0;  // 1-minute load average at the end, x 1000
};
// At collector start: the CPU counts and the machine's CPU times then.
void note_machine_at_start();
// At shutdown.
MachineLoad machine_load_at_end();

}  // namespace omprof
