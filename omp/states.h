// OpenMP thread states: names, the Work/Wait classification, and the pseudo-frame that stands
// for a waiting thread in user-model stacks. The one definition used by every view.
#pragma once

#include <cstdint>
#include <string>

namespace omprof::omp {

enum class StateClass { kWork, kWait };

struct StateInfo {
  const char* name;  // e.g. "wait_barrier"
  StateClass cls;
  const char* pseudo_frame;  // e.g. "<omp:barrier>", nullptr for work states
};

StateInfo describe_state(uint32_t state);
inline bool is_wait(uint32_t state) {
  return describe_state(state).cls == StateClass::kWait;
}
inline bool is_idle(uint32_t state) {
  return state == 0x100 || state == 0x1001;
}

}  // namespace omprof::omp
