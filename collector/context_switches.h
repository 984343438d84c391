// Context switches of the profiled threads: the task clock's cost grows with them (the kernel
// stops and restarts a thread's perf event at every switch: about 5 us on a 2-vCPU VM,
// docs/semantics.md "Clocks"), so a run that switches often is told that `--clock cpu` avoids
// that cost. Ordinary context.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace omprof {

// The calling thread's voluntary + involuntary switches so far (getrusage), 0 if unknown.
uint64_t own_context_switches();
// Another live thread's of this process (/proc/self/task/TID/status), 0 if unknown.
uint64_t context_switches_of(pid_t tid);
// At shutdown, once every thread's count is in its state: a manifest note when threads sampled
// by the task clock switched more than 2,000 times per second of their CPU time.
void note_task_clock_cost();

}  // namespace omprof
