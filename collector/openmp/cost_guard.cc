#include "collector/openmp/cost_guard.h"

#include "collector/openmp/wait_split.h"

namespace omprof::openmp {

bool CostGuard::measure_next() {
  if (!paused_) {
    ++measured_waits_;
    return true;
  }
  if (--pause_left_ == 0) paused_ = false;  // the next wait measures
  return false;
}

void CostGuard::note_measured(uint64_t now_ns, uint64_t off_ns) {
  if (paused_) return;  // measured all the same (a cheap clock): not the window's
  if (window_start_ns_ == 0) {
    window_start_ns_ = now_ns;
    window_off_ns_ = 0;
  }
  window_off_ns_ += off_ns;
  if (measured_waits_ < kGuardWindow) return;
  const uint64_t span = now_ns - window_start_ns_;
  measured_waits_ = 0;  // the next window
  window_start_ns_ = 0;
  // Each trip in a row pauses twice as long, up to 64x: a measured wait costs about ten
  // unmeasured ones, so a steady fine-grained program soon measures well under 1% of its waits.
  const GuardDecision d = guard_after_window(span, window_off_ns_, trips_);
  trips_ = d.trips;
  if (d.stop) {
    paused_ = true;
    pause_left_ = d.pause_waits;
  }
}

}  // namespace omprof::openmp
