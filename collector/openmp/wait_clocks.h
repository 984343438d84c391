// libgomp: the clocks of a thread's waits measured by their time off the CPU (barriers and
// taskwaits, where the runtime runs tasks; docs/semantics.md, "GNU libgomp") and of its
// end-of-region wait (join_close.h), with the two rules that keep a task's time out of them:
//  - a task run inside a wait through omprof's trampoline (GOMP_task) pauses the wait: the wait
//    is measured up to the task's start and again from its end (the task's time off the CPU,
//    preempted, is the task's);
//  - a wait inside which another wait began (a task ran there and waited: a task not run
//    through the trampoline, such as a taskloop's, or one that paused the wait) is not recorded
//    from then on: its time off the CPU may be that task's.
// Pure: the adapter (collector/gomp_bridge.cc) reads the clocks, keeps each wait's clock on the
// wrapper's stack and records what these return; tests/unit/wait_clocks_test.cc replays the
// wrappers' sequences. libomp's OMPT pauses its waits at task switches the same way, on the
// wall clock (collector/ompt/exact_waits.cc, wait_task_switch).
#pragma once

#include <cstdint>

#include "collector/openmp/join_close.h"

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

// What a task that begins pauses.
struct TaskPause {
  bool join = false;  // the end-of-region wait
  bool wait = false;  // the innermost barrier or taskwait
};

class ThreadWaits {
 public:
  // A wait begins at `now_ns` (0: not read), `cpu_ns` the thread's CPU clock when its time off
  // the CPU is measured (0: not measured).
  WaitClock begin(uint64_t now_ns, uint64_t cpu_ns);
  // Whether `w`'s time off the CPU since its (re)start is recorded (at its end, or when a task
  // pauses it): it is measured off the CPU and no wait began inside it.
  bool recorded(const WaitClock& w) const { return w.cpu_start_ns != 0 && w.epoch == epoch_; }

  // The end-of-region wait: opened at the end of the body; closed at the join, the next region,
  // a task run there, or shutdown.
  void open_join(uint64_t now_ns, uint64_t cpu_ns) { join_.open(now_ns, cpu_ns, epoch_); }
  JoinSpan::Closed close_join(uint64_t now_ns, uint64_t cpu_ns) {
    return join_.close(now_ns, cpu_ns, epoch_);
  }
  const JoinSpan& join() const { return join_; }

  // A task begins inside the innermost open wait `innermost` (null: none): what it pauses (the
  // adapter then closes the join and records the wait's piece up to now). A wait a running task
  // paused already is not paused again.
  TaskPause pause_for_task(WaitClock* innermost) const;
  // The task ended: the end-of-region wait goes on from now in any case (after it the thread
  // idles until its next region). A barrier or taskwait goes on if the task began no wait; if
  // it did (a recursion of taskwaits, as fib's), the thread's time off the CPU there may be its
  // preemption in the runtime's task dispatch as much as its sleep waiting for children run
  // elsewhere: it goes on as sleep_only when the thread's time in the run queue is known
  // (`run_delay_ns`, known: `run_delay_known`), else it is not recorded from then on.
  void resume_after_task(TaskPause paused, WaitClock* innermost, uint64_t now_ns, uint64_t cpu_ns,
                         bool run_delay_known = false, uint64_t run_delay_ns = 0);

 private:
  JoinSpan join_;
  uint64_t epoch_ = 0;
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
