// Which task construct created each deferred explicit task not yet completed: the fork table's
// record of its creation path (ompt_tool.cc). Filled at task_create, read when the task starts,
// emptied at its completion: OMPT callbacks only, on any thread. A fixed open-addressing table
// keyed by the task's ompt_data_t address, small enough to stay in cache (libomp queues at most
// 256 tasks per thread before it runs new ones at once), so that a task-heavy program costs a
// few loads and one compare-and-swap per task and no allocation.
#pragma once

#include <cstdint>

namespace omprof::ompt::task_origins {

// False if the table had no room near the task's slot (counted in dropped()).
bool insert(const void* task, uint32_t record);
// The task's record, 0 if unknown.
uint32_t find(const void* task);
void erase(const void* task);
uint64_t dropped();

}  // namespace omprof::ompt::task_origins
