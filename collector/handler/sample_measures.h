// How a sample's time counts, by its state: set outside the handler from the accounting rules
// (omp/accounting.h) once the run knows how it measures waits, read by the handler for the
// timeline (intervals.h) and for where the thread's time off the CPU fell (off_cpu_trail.h).
// Every MPI state (kMpiFirst and above) shares one switch. Atomic bits: async-signal-safe.
#pragma once

#include <cstdint>

#include "collector/handler/off_cpu_trail.h"

namespace omprof::handler {

// A sample in `state` only repeats a measured wait (omp::repeats_measured_time).
void set_repeats_measured(uint32_t state, bool repeats);
bool sample_repeats_measured(uint32_t state);
// A sample in `state` takes none of the thread's other time off the CPU (the state's own time
// off the CPU is measured: !omp::takes_off_cpu_time).
void set_takes_no_off_cpu(uint32_t state, bool none);

SampleTime sample_time(uint32_t state);

// Whether every time the run measures is wall time whose open part the thread publishes while
// it runs (OMPT's exact waits, MPI calls; intervals.h measured_so_far_ns), or some is known only
// when it ends (libgomp's waits' time off the CPU). Known while open until set: a program
// without OpenMP measures only its MPI calls.
void set_measured_known_while_open(bool known);
MeasuredKnown measured_known();

}  // namespace omprof::handler
