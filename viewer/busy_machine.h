// Whether the machine was busy while the program ran (issue 37, item 4), from what the profile
// holds since format 1.14: each thread's time waiting for a CPU (its run delay) and involuntary
// switches, the CPUs, the steal share and the load. A team member waiting for a CPU makes the
// others wait at the next barrier: the waits are real, their cause is the preemption.
#pragma once

#include <cstdint>
#include <string>

#include "viewer/model.h"

namespace omprof::viewer {

struct BusyMachine {
  bool known = false;           // the profile has the facts (1.14, not recovered)
  uint64_t run_delay_ns = 0;    // the program's threads' time waiting for a CPU, summed
  uint64_t thread_life_ns = 0;  // their lifetimes, summed
  uint64_t involuntary = 0;     // their involuntary context switches
  uint32_t threads = 0;         // OpenMP threads of the program
  uint64_t omp_wait_ns = 0;     // their OpenMP waits other than idle
  // Of those waits, at most this much can be waiting for a preempted team member: per thread,
  // its waits up to the other OpenMP threads' run delay.
  uint64_t preemption_bound_ns = 0;
  bool busy = false;  // run delay above 5% of the threads' lifetimes, or more threads than CPUs
};
BusyMachine busy_machine(const Model& m);

// "2 CPUs (2 allowed), load 2.90 at the end, steal 0.0%; the threads waited 1.234 s for a CPU
// (31.0% of their lifetime), 4,210 involuntary switches"; "" when unknown.
std::string machine_text(const format::Profile& p, const BusyMachine& b);
// The header's warning when the machine was busy, "" otherwise.
std::string busy_warning(const format::Profile& p, const BusyMachine& b);

}  // namespace omprof::viewer
