// What omprof's libgomp wrappers (gomp/, libomprof_gomp.so, preloaded only into programs that
// run on GNU libgomp, which has no OMPT) call in the collector: the fork and join of each
// parallel region, each team member's start and end, and the waits the wrapped entry points
// are. The collector keeps the thread's state and region where the signal handler reads them
// (handler/omp_inquiry.h), and records each construct's call path as the OMPT tool does. C
// linkage (both sides are C++: the context the wrappers keep on their stack holds what a task
// paused, openmp/wait_clocks.h); exported from libomprof.so. Ordinary context (never in a signal
// handler).
#pragma once

#include <stdint.h>

#include "collector/openmp/wait_clocks.h"

extern "C" {

// A thread's OpenMP context, saved across a region it forks or a wait it enters.
// The wait itself (its clocks, call site, team barrier) is on the thread's stack of open waits
// (collector/openmp/open_waits.h).
struct omprof_gomp_context {
  uint64_t parallel_value;
  uint32_t state;
  uint32_t thread_num;
  uint32_t begun;        // a wait, a task: whether the collector saved the context
  uint32_t pushed;       // a wait: whether it is on the stack of open waits
  uint32_t task_origin;  // the running task's creation record (0: an implicit task)
  uint64_t task_cut;     // the frame of omprof's call of the running task's code
};

// The wrappers are loaded (their constructor, on the initial thread). Returns 0 when omprof
// does not profile this process: the wrappers then only pass calls on.
int omprof_internal_gomp_attach(void);
// The calling thread forks a region at `codeptr_ra` (the return address into the program) from
// the wrapper's frame `enter_frame`: saves its context into *saved and returns the region's
// value for the team (0: not profiled).
uint64_t omprof_internal_gomp_fork(const void* codeptr_ra, const void* enter_frame,
                                   struct omprof_gomp_context* saved);
// The region forked with `value` has joined (the runtime returned to the forking thread):
// the region ends and the thread's context is restored.
void omprof_internal_gomp_join(uint64_t value, const struct omprof_gomp_context* saved);
// A team member starts the region's body as thread `thread_num` of `team_size`, called from
// `body_frame` (run_body's frame: task creation paths are cut there), and ends it (then waits
// at the region's end barrier, and idles once the region has joined).
void omprof_internal_gomp_member_begin(uint64_t value, unsigned thread_num, unsigned team_size,
                                       const void* body_frame);
void omprof_internal_gomp_member_end(void);
// A wrapped entry point that waits (barrier, lock, critical, ordered, taskwait) begins, in
// `state` (proto/state_codes.h), and ends; *saved keeps the state to return to.
// The part of each wait spent off the CPU (wall time minus the thread's CPU time: a sleeping
// barrier) is recorded exactly; the samples see its CPU time. `codeptr_ra`: the return address
// into the program.
// Or'ed into `state` by the wrappers of the barriers every member of the team reaches
// (GOMP_barrier, GOMP_loop_end, GOMP_sections_end and their _cancel forms): their waits are
// split at the last member's arrival (collector/handler/barrier_arrivals.h).
#define OMPROF_GOMP_TEAM_BARRIER 0x80000000u
void omprof_internal_gomp_wait_begin(uint32_t state, const void* codeptr_ra,
                                     struct omprof_gomp_context* saved);
void omprof_internal_gomp_wait_end(const struct omprof_gomp_context* saved);
// A call into libgomp that is no wait but may sleep on the runtime's own lock (GOMP_task, whose
// task queue's mutex futex-waits once contended): the time the thread sleeps there is task
// overhead, recorded exactly where the thread's CPU clock reads cheaply
// (clocks/switch_watch.h); otherwise it was off the CPU in no measured wait (`<off-cpu>` work).
struct omprof_gomp_runtime_call {
  omprof::openmp::RuntimeCallClock clock;
  uint64_t codeptr;     // the call site in the program
  uint32_t switch_seq;  // the thread's switch word when it began
};
// The runtime call that queues a task created by task_create (*call, filled there) ends; or is
// timed again from now, the program's code having run inside it (its copy function).
void omprof_internal_gomp_runtime_call_end(const struct omprof_gomp_runtime_call* call);
void omprof_internal_gomp_runtime_call_restart(struct omprof_gomp_runtime_call* call);
// A deferred task is created at `codeptr_ra` (the return address into the program): records
// its creation path, from the running task's code on, and returns its record (0: none; the
// task then runs as before, under the region that runs it). With a record, *call times the
// GOMP_task call that queues the task (omprof_internal_gomp_runtime_call_end).
uint32_t omprof_internal_gomp_task_create(const void* codeptr_ra, const void* enter_frame,
                                          struct omprof_gomp_runtime_call* call);
// A task created with record `record` starts running on this thread, its code called from
// `frame` (the wrapper's trampoline); *saved keeps the task it interrupts, which task_end
// resumes. A barrier, region-end or taskwait wait the task runs in is paused meanwhile: its
// time off the CPU is measured up to the task's start and again from its end.
void omprof_internal_gomp_task_begin(uint32_t record, const void* frame,
                                     struct omprof_gomp_context* saved);
void omprof_internal_gomp_task_end(const struct omprof_gomp_context* saved);

}  // extern "C"

namespace omprof::handler {
struct ThreadState;
}
namespace omprof::gomp {
// Shutdown: the end-of-region waits still open (workers idle since their last region) end at
// `now_ns` (the threads are parked; their CPU time is ThreadState::cpu_ns_at_exit).
void close_open_joins(uint64_t now_ns);
// The calling thread ends: its CPU clock's page goes (clocks/switch_watch.h).
void thread_exits(omprof::handler::ThreadState* ts);
}  // namespace omprof::gomp
