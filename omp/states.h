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
// Waits that omprof measures exactly from OMPT callbacks (barriers, taskwait and taskgroup,
// locks, critical, atomic, ordered, idle, and fork/join overhead). In profiles with exact waits,
// samples in these states only repeat what the intervals measured, and readers use the intervals.
inline bool is_measured_exactly(uint32_t state) {
  return (state >= 0x10 && state <= 0x16) || state == 0x20 || state == 0x21 ||
         (state >= 0x40 && state <= 0x44) || is_idle(state) || state == 0x101;
}
// omprof's pseudo-state for thread time that is neither a sampled CPU instant nor an exact wait:
// the thread was preempted, blocked in a system call or sleeping outside any OpenMP wait. It is
// work (the thread was not waiting for other threads), shown as <off-cpu>.
constexpr uint32_t kStateOffCpu = 0x1003;

}  // namespace omprof::omp
