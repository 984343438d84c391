// libgomp: the clocks of a wait measured by its time off the CPU (barriers and taskwaits, where
// the runtime runs tasks; docs/semantics.md, "GNU libgomp") or whole (locks, critical), and of
// a runtime call that may sleep on the runtime's own lock. The thread's stack of open waits
// (open_waits.h) keeps one per wait and applies the two rules that keep a task's time out of
// them:
//  - a task run inside a wait through omprof's trampoline (GOMP_task) pauses the wait: the wait
//    is measured up to the task's start and again from its end (the task's time off the CPU,
//    preempted, is the task's);
//  - a wait inside which another wait began (a task ran there and waited: a task not run
//    through the trampoline, such as a taskloop's, or one that paused the wait) is not recorded
//    from then on: its time off the CPU may be that task's.
// Pure: the adapter (collector/libgomp/waits.cc) reads the clocks and records what these return;
// tests/unit/wait_clocks_test.cc replays the wrappers' sequences.
#pragma once

#include <cstdint>

namespace omprof::openmp {

// One barrier, taskwait, lock or critical wait's clock, kept while the wait lasts.
struct WaitClock {
  uint64_t start_ns = 0;      // its (re)start (0: not read, the wait is not measured)
  uint64_t cpu_start_ns = 0;  // the thread's CPU clock then (0: not measured off the CPU)
  uint64_t epoch = 0;         // the thread's count of begun waits, this one included
  // Resumed after a task that waited itself: from then on only its time off the CPU out of the
  // run queue is recorded (sleep_part), and the thread's time in the run queue then.
  bool sleep_only = false;
  uint64_t run_delay_start_ns = 0;
  // A task it runs paused it (until that task's end): a task run at once inside that task
  // (GOMP_task with its queue full) finds it paused and leaves it alone.
  bool paused = false;
};

// Of `off_ns`, the time off the CPU of a piece of wait `w` that ended when the thread's time in
// the run queue was `run_delay_now_ns`, what is recorded: all of it, but for a sleep_only wait
// only what was not in the run queue (its sleep).
uint64_t sleep_part(const WaitClock& w, uint64_t off_ns, uint64_t run_delay_now_ns);

// A call into the runtime that is no wait but may sleep on the runtime's own lock (GOMP_task: its
// team's task queue mutex futex-waits once contended, at once under a passive policy or with more
// threads than CPUs): its clocks when it began (start_ns 0: not measured).
struct RuntimeCallClock {
  uint64_t start_ns = 0;
  uint64_t cpu_start_ns = 0;
  uint64_t run_delay_start_ns = 0;  // the thread's time in the run queue then
  uint64_t tasks_begun = 0;         // tasks the thread had begun through the trampoline then
};
// What such a call slept, ended at `now_ns` (the thread's CPU clock `cpu_ns`, run-queue time
// `run_delay_now_ns`, tasks begun `tasks_begun_now`): its time off the CPU out of the run queue
// (preempted there, it is the machine's, not the runtime's); nothing if a task ran inside it (a
// task run at once, its queue full: its time off the CPU is partly the task's).
uint64_t runtime_call_sleep(const RuntimeCallClock& c, uint64_t now_ns, uint64_t cpu_ns,
                            uint64_t run_delay_now_ns, uint64_t tasks_begun_now);

}  // namespace omprof::openmp
