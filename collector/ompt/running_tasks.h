// The task each thread runs, for the handler (handler/omp_published.h: task_origin, task_frame): a
// deferred task's creation record, found again when it starts on any thread, or its creator's
// for an undeferred one; kept as a per-thread stack of running tasks across task switches.
// Process context (OMPT callbacks).
#pragma once

#include <omp-tools.h>

#include <atomic>
#include <cstdint>

#include "collector/handler/task_children.h"
#include "collector/ompt/ompt_thread.h"
#include "collector/ompt/task_origins.h"
#include "collector/thread_registry.h"

namespace omprof::ompt {

// The runtime's inquiry for a task's frame (ompt_get_task_info), once OMPT is initialized.
void set_task_info_inquiry(ompt_get_task_info_t get_task_info);

// The task the runtime says the thread runs now and its OMPT frame (libomp makes a starting
// task current before it calls task_schedule); null when unknown.
const ompt_data_t* runtime_current_task(const ompt_frame_t** frame);

// Inline below: called at every task switch (two per task in a program of fine-grained tasks).

// The task the thread runs from now on (`origin`: its record, 0 for none; handler/omp_published.h).
inline void set_running_task(ThreadState* ts, uint32_t origin, const ompt_frame_t* frame) {
  handler::publish_running_task(ts->omp, origin, frame);
}

// `next` starts (or is switched to after a yield): a deferred task's origin was recorded at
// its creation; an undeferred one runs inline in its creator, whose origin it keeps.
// libomp 14 starts an untied task with three switches, the task, back to its creator, the task
// again, and names the creator in the second while the task runs on (the runtime's current task,
// a thread that switched to the task named, is the task itself): that switch changes nothing
// (it made every untied task's samples and waits the region's: BOTS fib on clang, 80%).
inline void task_began(ThreadState* ts, const ompt_data_t* next) {
  OmptThread& o = own(ts);
  RunningTask r;
  r.task = next;
  if (next && handler::task_children::linked(&next->value)) {
    r.origin = task_origins::find(next);
    const ompt_frame_t* frame = nullptr;
    const ompt_data_t* current = runtime_current_task(&frame);
    if (current == next) {
      r.frame = frame;
    } else if (current && o.running_depth > 0 && o.running_depth <= kMaxRunningTasks &&
               o.running_tasks[o.running_depth - 1].task == current) {
      return;  // misnamed: the running task goes on
    }
    if (!r.frame) r.origin = 0;
  } else {
    r.origin = ts->omp.task_origin;
    r.frame = ts->omp.ompt.task_frame;
  }
  if (o.running_depth < kMaxRunningTasks) o.running_tasks[o.running_depth] = r;
  ++o.running_depth;
  set_running_task(ts, r.origin, r.frame);
}

// The task that ran ended (completed, cancelled or detached): the thread resumes `next`, below
// it on this thread's stack of running tasks (an implicit task is not on it).
inline void task_ended(ThreadState* ts, const ompt_data_t* next) {
  OmptThread& o = own(ts);
  while (o.running_depth > 0) {
    const int top = o.running_depth - 1;
    if (top < kMaxRunningTasks && o.running_tasks[top].task == next) break;
    --o.running_depth;
    if (top >= kMaxRunningTasks) break;  // not kept: assume the innermost ended
  }
  const int top = o.running_depth - 1;
  if (top >= 0 && top < kMaxRunningTasks)
    set_running_task(ts, o.running_tasks[top].origin, o.running_tasks[top].frame);
  else
    set_running_task(ts, 0, nullptr);
}

}  // namespace omprof::ompt
