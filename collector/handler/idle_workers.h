// Idleness blamed on the serial code that causes it (issue 37, item 5; HPCToolkit's "idleness
// blame shifting"): while the main thread runs outside every parallel region, the OpenMP
// workers alive idle in the runtime, and each of its samples carries their idle time, its weight
// times their number, to its own call path (Sample.idle_workers_ns).
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::handler {

// Process context, on the thread itself: it became an OpenMP worker (a team member other than
// an initial thread; counted once) / it ends.
void count_omp_worker(ThreadState* ts);
void uncount_omp_worker(ThreadState* ts);

// Async-signal-safe: the idle workers' time a sample of `weight_ns` of `ts` stands for (0 unless
// `ts` is the main thread outside every parallel region it forked).
uint64_t idle_blame_ns(const ThreadState* ts, uint64_t weight_ns);

}  // namespace omprof::handler
