#include "collector/ompt/running_tasks.h"

#include <atomic>

#include "collector/handler/task_children.h"
#include "collector/ompt/task_origins.h"

namespace omprof::ompt {

namespace {
ompt_get_task_info_t g_get_task_info = nullptr;

bool plausible_pointer(const void* p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  return v >= 4096 && (v & 7) == 0 && v < (uintptr_t(1) << 47);
}
}  // namespace

void set_task_info_inquiry(ompt_get_task_info_t get_task_info) {
  g_get_task_info = get_task_info;
}

// The frame is written last: the handler reads it first.
void set_running_task(ThreadState* ts, uint32_t origin, const ompt_frame_t* frame) {
  ts->task_frame = nullptr;
  std::atomic_signal_fence(std::memory_order_release);
  ts->task_origin = origin;
  std::atomic_signal_fence(std::memory_order_release);
  ts->task_frame = frame;
}

namespace {
// A starting task's OMPT frame: libomp makes the task current before it calls task_schedule.
const ompt_frame_t* starting_task_frame(const ompt_data_t* task) {
  ompt_data_t* current = nullptr;
  ompt_frame_t* frame = nullptr;
  if (g_get_task_info && g_get_task_info(0, nullptr, &current, &frame, nullptr, nullptr) &&
      current == task && plausible_pointer(frame))
    return frame;
  return nullptr;
}
}  // namespace

// `next` starts (or is switched to after a yield): a deferred task's origin was recorded at
// its creation; an undeferred one runs inline in its creator, whose origin it keeps.
void task_began(ThreadState* ts, const ompt_data_t* next) {
  handler::RunningTask r;
  r.task = next;
  if (next && handler::task_children::linked(&next->value)) {
    r.origin = task_origins::find(next);
    if (r.origin) r.frame = starting_task_frame(next);
  } else {
    r.origin = ts->task_origin;
    r.frame = ts->task_frame;
  }
  if (ts->running_depth < handler::kMaxRunningTasks) ts->running_tasks[ts->running_depth] = r;
  ++ts->running_depth;
  set_running_task(ts, r.origin, r.frame);
}

// The task that ran ended (completed, cancelled or detached): the thread resumes `next`, below
// it on this thread's stack of running tasks (an implicit task is not on it).
void task_ended(ThreadState* ts, const ompt_data_t* next) {
  while (ts->running_depth > 0) {
    const int top = ts->running_depth - 1;
    if (top < handler::kMaxRunningTasks && ts->running_tasks[top].task == next) break;
    --ts->running_depth;
    if (top >= handler::kMaxRunningTasks) break;  // not kept: assume the innermost ended
  }
  const int top = ts->running_depth - 1;
  if (top >= 0 && top < handler::kMaxRunningTasks)
    set_running_task(ts, ts->running_tasks[top].origin, ts->running_tasks[top].frame);
  else
    set_running_task(ts, 0, nullptr);
}

}  // namespace omprof::ompt
