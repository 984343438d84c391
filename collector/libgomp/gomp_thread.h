// What omprof's libgomp adapter (collector/libgomp/) keeps per thread for itself: the running
// task's trampoline frame, the fork in progress, the cost guard, the thread's CPU clock (the
// waits open on the thread, its end-of-region wait and the barriers it met are the event
// model's: openmp/thread_model.h). The handler never reads any of it (what it reads is
// published in handler/omp_published.h: the task origin, and GompPublished's state, region,
// barrier tag), so it lives apart: ThreadState holds only an opaque pointer to it, made on the
// thread's first use of a wrapper and kept to the end. Process context.
#pragma once

#include <cstdint>

#include "collector/clocks/switch_watch.h"
#include "collector/libgomp/bridge.h"
#include "collector/openmp/cost_guard.h"
#include "collector/openmp/thread_model.h"
#include "collector/thread_part.h"
#include "collector/thread_registry.h"

namespace omprof::gomp {

struct GompThread {
  // The frame of the trampoline that called the running task's code (creation paths are cut
  // there; 0: the implicit task).
  uint64_t task_cut = 0;
  uint64_t fork_start_ns = 0;  // a fork in progress: the clocks then (0: none)
  uint64_t fork_cpu_ns = 0;
  uint64_t body_start_ns = 0;  // the thread's last region body: when it started
  // Whether the thread measures its waits' time off the CPU now.
  openmp::CostGuard guard;
  // Tasks it began through omprof's trampoline (a runtime call inside which one ran is not timed).
  uint64_t tasks_begun = 0;
  // Its CPU time, read without a system call while it is not switched out.
  clocks::SwitchWatch cpu_clock;
};

// Shared by the adapter's files (regions.cc, waits.cc, task_creation.cc). The calling thread while
// the wrappers act (not once OMPT runs in the process), else null.
ThreadState* tracked_thread();
// Where a wait the thread measures now in `state` is recorded (collector/wait_context.h).
SampleContext context_now(const ThreadState* ts, uint32_t state);
// The calling thread's CPU time at `now` (clocks/switch_watch.h: a system call only after the
// thread was switched out).
uint64_t cpu_at(ThreadState* ts, uint64_t now);

// The thread's context, saved across a region it forks or a wait it enters.
void save(const ThreadState* ts, omprof_gomp_context* saved);
// The running task (origin) and where its code was called from (cut), written before a sample
// can read the origin.
void set_task(ThreadState* ts, uint32_t origin, uint64_t cut);
// Whether the thread measures the wait it begins by its time off the CPU: always where its CPU
// clock reads without a system call (clocks/switch_watch.h), else as the cost guard says
// (collector/openmp/cost_guard.h). `counted`: whether the guard counts the wait in its window;
// only those count their team barrier's arrival (a cache line the team shares).
bool measures_off_cpu(ThreadState* ts, bool* counted = nullptr);
// The cost guard learns that a wait ending at `now` was measured, `off` of it off the CPU.
void note_measured(ThreadState* ts, uint64_t now, uint64_t off);
// A thread's end-of-region wait (openmp/open_waits.h open_join), to `now` (its CPU time
// `cpu_now`): a piece up to a task it runs there (record_join), or the whole at the master's
// join, a worker's wake-up for its next region (`next`, `next_instance`: that region's) or
// shutdown (close_join also takes it off the stack). Its time off the CPU, split
// (openmp/join_close.h): woken for the next region in that region's context, idle in none, the
// fork's and release's overhead and the waiting at the barrier in the context the wait began in.
void record_join(ThreadState* ts, uint64_t now, uint64_t cpu_now, const SampleContext* next,
                 uint32_t next_instance);
void close_join(ThreadState* ts, uint64_t now, const SampleContext* next, uint32_t next_instance);

// The calling thread's (`ts`) private part, made on first use.
inline GompThread& own(ThreadState* ts) {
  return thread_part<GompThread>(ts->gomp_private);
}
// Any thread's, if it has one (shutdown reads the others'); null otherwise.
inline GompThread* existing(const ThreadState* ts) {
  return static_cast<GompThread*>(ts->gomp_private);
}

}  // namespace omprof::gomp
