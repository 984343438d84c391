// What omprof's libgomp wrappers (gomp_bridge.cc) keep per thread for themselves: the waits open
// on the thread and its end-of-region wait (the event model's stack, openmp/open_waits.h), the
// barriers met in the current region, the cost guard, the thread's CPU clock. The handler never
// reads any of it (what it reads is published in handler/omp_published.h: the task origin, and
// GompPublished's state, region, barrier tag), so it lives apart: ThreadState holds only an opaque
// pointer to it, made on the thread's first use of a wrapper and kept to the end (shutdown closes
// the joins still open). Process context.
#pragma once

#include <cstdint>

#include "collector/clocks/switch_watch.h"
#include "collector/openmp/cost_guard.h"
#include "collector/openmp/open_waits.h"
#include "collector/thread_registry.h"

namespace omprof::gomp {

struct GompThread {
  // The frame of the trampoline that called the running task's code (creation paths are cut
  // there; 0: the implicit task).
  uint64_t task_cut = 0;
  // The waits open on the thread, measured by their clocks, and its end-of-region wait (since
  // the end of its last region body), with the context that wait is attributed to.
  openmp::OpenWaits waits;
  SampleContext join_ctx;
  uint64_t fork_start_ns = 0;  // a fork in progress: the clocks then (0: none)
  uint64_t fork_cpu_ns = 0;
  uint64_t body_start_ns = 0;  // the thread's last region body: when it started
  // The team barriers (explicit, worksharing) the thread met in its current region.
  uint32_t barriers_met = 0;
  // Whether the thread measures its waits' time off the CPU now.
  openmp::CostGuard guard;
  // Tasks it began through omprof's trampoline (a runtime call inside which one ran is not timed).
  uint64_t tasks_begun = 0;
  // Its CPU time, read without a system call while it is not switched out.
  clocks::SwitchWatch cpu_clock;
};

// Shared by the wrappers' two halves in the collector (gomp_bridge.cc: regions and waits;
// gomp_tasks.cc: task creation). The calling thread while the wrappers act (not once OMPT runs
// in the process), else null.
ThreadState* tracked_thread();
// Where a wait the thread measures now in `state` is recorded (collector/wait_context.h).
SampleContext context_now(const ThreadState* ts, uint32_t state);
// The calling thread's CPU time at `now` (clocks/switch_watch.h: a system call only after the
// thread was switched out).
uint64_t cpu_at(ThreadState* ts, uint64_t now);

// The calling thread's (`ts`) private part, made on first use.
inline GompThread& own(ThreadState* ts) {
  if (!ts->gomp_private) ts->gomp_private = new GompThread;
  return *static_cast<GompThread*>(ts->gomp_private);
}
// Any thread's, if it has one (shutdown reads the others'); null otherwise.
inline GompThread* existing(const ThreadState* ts) {
  return static_cast<GompThread*>(ts->gomp_private);
}

}  // namespace omprof::gomp
