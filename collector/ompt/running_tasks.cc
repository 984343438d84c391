#include "collector/ompt/running_tasks.h"

#include <atomic>

#include "collector/handler/omp_inquiry.h"
#include "collector/handler/task_children.h"
#include "collector/ompt/task_origins.h"

namespace omprof::ompt {

namespace {
ompt_get_task_info_t g_get_task_info = nullptr;
}  // namespace

void set_task_info_inquiry(ompt_get_task_info_t get_task_info) {
  g_get_task_info = get_task_info;
}

const ompt_data_t* runtime_current_task(const ompt_frame_t** frame) {
  ompt_data_t* current = nullptr;
  ompt_frame_t* f = nullptr;
  *frame = nullptr;
  if (!g_get_task_info || !g_get_task_info(0, nullptr, &current, &f, nullptr, nullptr))
    return nullptr;
  if (handler::plausible_pointer(f)) *frame = f;
  return current;
}

}  // namespace omprof::ompt
