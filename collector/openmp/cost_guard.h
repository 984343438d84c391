// libgomp's cost guard over one thread's waits (collector/libgomp/waits.cc measures a barrier's or
// taskwait's time off the CPU with two thread CPU clock reads, a system call each, 0.2 to
// 0.7 us, where perf_event_open is refused; clocks/switch_watch.h reads them without one
// otherwise, and then the guard decides only whether a team barrier's arrival is counted, a
// cache line the team shares, and every wait is measured). The thread measures its waits in windows
// of kGuardWindow; a window that took under 64 ms of wall time (over 16,000 waits a second:
// fine-grained tasks or regions, where the clock reads cost more than the program: fib(38) on gcc
// ran 3x longer measuring every wait) and whose waits spent under 10% of it off the CPU stops the
// measuring for the next kGuardPause waits, twice as many after each such window in a row
// (guard_after_window), which are sampled only (counted in Thread.unmeasured_waits, shown in the
// report's Lost line); then a new window measures again. Only the time off the CPU that measuring
// records counts (waits inside which tasks waited are not recorded). So at most about 10% of such a
// thread's time, asleep in unmeasured waits, is counted as work (spread as <off-cpu>). Waits that
// mostly sleep (a passive wait policy: 60% and more of the time) are measured at any rate: LULESH
// built by gcc, passive, showed 56% of its thread time as <off-cpu> work when the first fast window
// stopped the measuring for good. Pure: the adapter passes the times
// (tests/unit/cost_guard_test.cc).
#pragma once

#include <cstdint>

namespace omprof::openmp {

class CostGuard {
 public:
  // Whether the thread measures the wait it begins now (a measured one counts in the window).
  bool measure_next();
  // A measured wait ended at `now_ns`; `off_ns`: its time off the CPU as recorded (0 when the
  // wait is not recorded: measuring it gained nothing). Ignored while paused.
  void note_measured(uint64_t now_ns, uint64_t off_ns);

 private:
  uint64_t measured_waits_ = 0;   // begun in the current window
  uint64_t window_start_ns_ = 0;  // when the window's first measured wait ended (0: none yet)
  uint64_t window_off_ns_ = 0;    // the time off the CPU its waits recorded
  bool paused_ = false;
  uint32_t pause_left_ = 0;  // waits still left unmeasured
  uint32_t trips_ = 0;       // windows in a row that stopped the measuring
};

}  // namespace omprof::openmp
