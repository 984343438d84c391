// What the OpenMP adapters publish for the thread's signal handler (ThreadState::omp): the
// thread's number in its team, the task it runs, and what each runtime's adapter adds where its
// runtime cannot be asked from a signal handler. Written only by the thread itself, in ordinary
// context (the OMPT callbacks, collector/ompt/; the libgomp wrappers, collector/libgomp/),
// with plain stores and signal fences, by the functions below; read by the thread's own handler
// (omp_inquiry.cc, intervals.cc). What the adapters keep for themselves lives apart, out of the
// handler's reach (collector/ompt/ompt_thread.h, collector/libgomp/gomp_thread.h).
#pragma once

#include <omp-tools.h>

#include <atomic>
#include <cstdint>

namespace omprof::handler {

// A taskwait or taskgroup wait in progress on a thread (collector/ompt/ompt_tool.cc): the
// waiting task's ompt_data_t, whose word counts its outstanding children (task_children.h).
struct TaskwaitBracket {
  const void* task = nullptr;
  bool group = false;  // a taskgroup waits for descendants, which are not counted
  // The waiting task's creation record (0: none): a sample in the wait is the task's even where
  // the thread's running task is not known (libomp 14 around untied tasks).
  uint32_t origin = 0;
};
constexpr int kMaxTaskwaitBrackets = 32;

// On libomp, what the OMPT adapter adds to what the handler asks the runtime (the state and the
// region: omp_inquiry.h).
struct OmptPublished {
  // The running task's OMPT frame, whose exit frame is set while the task's own code runs
  // (omp_inquiry.h running_task_origin; null: the implicit task).
  const ompt_frame_t* task_frame = nullptr;
  const void* current_task = nullptr;  // the task this thread runs (task_schedule), if known
  int taskwait_depth = 0;  // taskwait/taskgroup waits in progress (libomp 14: work_parallel)
  TaskwaitBracket taskwait_brackets[kMaxTaskwaitBrackets];  // the innermost at depth - 1
  // When the measured wait running now began (its piece since, if it was paused for tasks; 0:
  // none), set by the OMPT adapter (ompt/exact_waits.cc; intervals.h).
  uint64_t measured_open_since_ns = 0;
};

// On GNU libgomp (no OMPT), what the wrappers of its entry points publish in place of OMPT's
// inquiry: the thread's state and region, and what its region-end and team barriers are split by.
struct GompPublished {
  // Whether the wrappers saw the thread fork or join a team (the rest is valid once set).
  bool thread = false;
  uint32_t state = 0;           // proto/state_codes.h
  uint64_t parallel_value = 0;  // its innermost region (parallel_value.h)
  // The thread's strata_sampled when its innermost taskwait began: a taskwait that already had
  // a sample is one that waits.
  uint64_t taskwait_strata = 0;
  // How long the thread's last region body lasted, and whether it ran a task at its region's
  // end barrier since (that wait is then not split at the last member's arrival).
  uint64_t body_ns = 0;
  bool join_ran_task = false;
  // The team barrier the thread waits in now (barrier_arrivals.h; 0: none), whether it ran a
  // task there (its wait is then not split), and its team's size.
  uint64_t barrier_tag = 0;
  bool barrier_ran_task = false;
  uint32_t team_size = 0;
};

struct OmpPublished {
  uint32_t thread_num = 0;  // in the innermost team (both runtimes)
  // Parallel regions this thread forked and has not joined (ompt/fork_walls.h): the main
  // thread's serial code is blamed for idle workers only outside them (idle_workers.h).
  uint32_t fork_depth = 0;
  // The deferred explicit task this thread runs, if its creation was recorded: its creation
  // record (ompt/task_origins.h; 0: the implicit task). Both runtimes: publish_running_task.
  uint32_t task_origin = 0;
  OmptPublished ompt;
  GompPublished gomp;
};

// The task the thread runs from now on: its record (0: none) and, on OMPT, its frame (libgomp:
// null). The frame is written last: the handler reads it first (running_task_origin).
inline void publish_running_task(OmpPublished& p, uint32_t origin, const ompt_frame_t* frame) {
  p.ompt.task_frame = nullptr;
  std::atomic_signal_fence(std::memory_order_release);
  p.task_origin = origin;
  std::atomic_signal_fence(std::memory_order_release);
  p.ompt.task_frame = frame;
}

// libgomp: the thread's region and state. The handler reads the state first, then the value
// (omp_inquiry.cc, read_gomp_state).
inline void publish_gomp_context(GompPublished& p, uint64_t parallel_value, uint32_t state) {
  p.parallel_value = parallel_value;
  std::atomic_signal_fence(std::memory_order_release);
  p.state = state;
  p.thread = true;
}

}  // namespace omprof::handler
