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

const ompt_frame_t* starting_task_frame(const ompt_data_t* task) {
  ompt_data_t* current = nullptr;
  ompt_frame_t* frame = nullptr;
  if (g_get_task_info && g_get_task_info(0, nullptr, &current, &frame, nullptr, nullptr) &&
      current == task && plausible_pointer(frame))
    return frame;
  return nullptr;
}

}  // namespace omprof::ompt
