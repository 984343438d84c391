// Context switches of the profiled threads: the task clock's cost grows with them (the kernel
// stops and restarts a thread's perf event at every switch: about 5 us on a 2-vCPU VM,
// docs/semantics.md "Clocks"), so a run that switches often is told that `--clock cpu` avoids
// that cost. Ordinary context. Each thread's count is read with its other scheduling facts
// (machine_load.h).
#pragma once

#include <cstdint>

namespace omprof {

// At shutdown, once every thread's count is in its state: a manifest note when threads sampled
// by the task clock switched more than 2,000 times per second of their CPU time.
void note_task_clock_cost();

}  // namespace omprof
