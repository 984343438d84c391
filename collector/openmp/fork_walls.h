// The wall time of parallel regions, fork to join as the encountering thread sees it, shared by
// the OMPT callbacks and the libgomp wrappers (collector/libgomp/bridge.h): summed per fork record
// (ForkRecord.wall_ns) and, for the outermost regions a thread forks, per thread
// (ThreadRecord.parallel_wall_ns: the main thread's run split into parallel and serial time).
// Process context, on the encountering thread; a few stores per region, no atomic operation
// unless the thread forks another construct than last time.
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::openmp {

// `ts` forks a parallel region at `now_ns`.
void note_fork_time(handler::ThreadState* ts, uint64_t now_ns);
// `ts` joins the innermost region it forked, an instance of fork record `fork_id`, at `now_ns`.
void note_join_time(handler::ThreadState* ts, uint64_t fork_id, uint64_t now_ns);

}  // namespace omprof::openmp
