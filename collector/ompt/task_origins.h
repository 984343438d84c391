// Which task construct created each deferred explicit task not yet completed: the fork table's
// record of its creation path (ompt_tool.cc), and once the task has started, its OMPT frame
// (whose exit frame tells the handler whether the task's own code is running). Filled at
// task_create, read at each switch to the task, emptied at its completion: OMPT callbacks only,
// on any thread. A fixed open-addressing table keyed by the task's ompt_data_t address, so that
// a task-heavy program costs a few loads and one compare-and-swap per task and no allocation.
#pragma once

#include <omp-tools.h>

#include <cstdint>

namespace omprof::ompt::task_origins {

struct Origin {
  uint32_t record = 0;  // 0: unknown
  const ompt_frame_t* frame = nullptr;
};

// False if the table had no room near the task's slot (counted in dropped()).
bool insert(const void* task, uint32_t record);
// The task's origin; with `frame` non-null and none known yet, remembers it.
Origin find(const void* task, const ompt_frame_t* frame);
void erase(const void* task);
uint64_t dropped();

}  // namespace omprof::ompt::task_origins
