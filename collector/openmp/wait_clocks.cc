#include "collector/openmp/wait_clocks.h"

namespace omprof::openmp {

WaitClock ThreadWaits::begin(uint64_t now_ns, uint64_t cpu_ns) {
  WaitClock w;
  w.start_ns = now_ns;
  w.cpu_start_ns = cpu_ns;
  w.epoch = ++epoch_;
  return w;
}

TaskPause ThreadWaits::pause_for_task(const WaitClock* innermost) const {
  TaskPause p;
  p.join = join_.is_open();
  p.wait = innermost != nullptr && recorded(*innermost);
  return p;
}

void ThreadWaits::resume_after_task(TaskPause paused, WaitClock* innermost, uint64_t now_ns,
                                    uint64_t cpu_ns) {
  if (paused.join) open_join(now_ns, cpu_ns);
  if (paused.wait && innermost != nullptr && innermost->epoch == epoch_) {
    innermost->start_ns = now_ns;
    innermost->cpu_start_ns = cpu_ns;
  }
}

}  // namespace omprof::openmp
