// Where an exact wait or an overhead interval is recorded: the one rule both runtimes' adapters
// use (the OMPT callbacks, collector/ompt/; the libgomp wrappers, gomp_bridge.cc and
// gomp_tasks.cc), so that a measured interval lies where the thread's samples at that moment do.
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof {

// The calling thread's context now, in the parallel region whose value is `parallel_value`
// (handler/parallel_value.h; 0: none) and in `state` (0: the caller sets it later): the region's
// fork, the thread's number in it, its explicit region and the deferred task it runs.
journal::SampleContext wait_context(const handler::ThreadState& ts, uint64_t parallel_value,
                                    uint32_t state);

}  // namespace omprof
