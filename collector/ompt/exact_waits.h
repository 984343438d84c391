// Exact OpenMP wait intervals (in the profiled process), measured from OMPT callbacks with two
// monotonic clock reads each: barriers, taskwait/taskgroup, locks/critical/ordered, and a worker's
// time between regions (idle). Samples see a wait only while the runtime spins on a CPU; these
// intervals see it whatever the wait policy, the blocktime or the machine load (docs/semantics.md).
//
// Runs in the profiled process, in OMPT callbacks on the waiting thread (never in the signal
// handler), and writes only that thread's tables, so no locks are needed.
#pragma once

#include <cstdint>
#include <functional>

#include "collector/openmp/open_waits.h"
#include "collector/thread_registry.h"

namespace omprof::ompt {

using openmp::BarrierRole;

// OpenMP sync-region and mutex kinds as omp-tools.h numbers them, passed through as ints so
// that this header does not need omp-tools.h.
void wait_begin_sync(ThreadState* ts, int sync_kind, uint64_t codeptr, const void* task,
                     const SampleContext& ctx, uint32_t region_instance, BarrierRole role);
// Returns the time the wait ended (0 if none was open).
uint64_t wait_end_sync(ThreadState* ts);
void wait_begin_mutex(ThreadState* ts, int mutex_kind, uint64_t wait_id, uint64_t codeptr,
                      const SampleContext& ctx);
void wait_end_mutex(ThreadState* ts, uint64_t wait_id);
// A task switch on this thread: a wait whose task stops running pauses (the thread runs other
// tasks meanwhile: work, not waiting), and resumes when its task runs again.
void wait_task_switch(ThreadState* ts, const void* next_task);

// Shutdown: closes every thread's open waits at `now_ns` (the worker waiting for a next region
// that never comes is idle until the end).
void close_open_waits(uint64_t now_ns);

// The in-job MPI summary: what a thread's open waits would record if they ended at `now_ns`,
// leaving them open. Reads another thread's waits: exact
// while it is parked in the runtime (as at MPI_Finalize); a wait ending meanwhile may be counted
// twice or not at all.
void open_waits_so_far(const ThreadState* ts, uint64_t now_ns,
                       const std::function<void(const SampleContext&, uint64_t)>& emit);

}  // namespace omprof::ompt
