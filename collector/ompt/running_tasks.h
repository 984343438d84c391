// The task each thread runs, for the handler (thread_state.h: task_origin, task_frame): a
// deferred task's creation record, found again when it starts on any thread, or its creator's
// for an undeferred one; kept as a per-thread stack of running tasks across task switches.
// Process context (OMPT callbacks).
#pragma once

#include <omp-tools.h>

#include <cstdint>

#include "collector/thread_registry.h"

namespace omprof::ompt {

// The runtime's inquiry for a task's frame (ompt_get_task_info), once OMPT is initialized.
void set_task_info_inquiry(ompt_get_task_info_t get_task_info);

// The task the thread runs from now on (`origin`: its record, 0 for none).
void set_running_task(ThreadState* ts, uint32_t origin, const ompt_frame_t* frame);
// `next` starts (or is switched to after a yield).
void task_began(ThreadState* ts, const ompt_data_t* next);
// The task that ran ended (completed, cancelled or detached): the thread resumes `next`.
void task_ended(ThreadState* ts, const ompt_data_t* next);

}  // namespace omprof::ompt
