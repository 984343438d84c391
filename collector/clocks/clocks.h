// The sampling clocks (handler/sampling_clock.h), one per file:
//   cpu  - a POSIX timer on the thread's CPU-time clock (posix_timer.cc; acts on kernel ticks);
//   wall - a POSIX timer on CLOCK_MONOTONIC (posix_timer.cc);
//   task - a perf_event task-clock on the thread (task_clock.cc): CPU time like cpu, signalled
//          by an hrtimer while the thread runs, so not limited to kernel ticks.
#pragma once

#include "collector/handler/sampling_clock.h"

namespace omprof::clocks {

const handler::SamplingClock& cpu_timer();
const handler::SamplingClock& wall_timer();
const handler::SamplingClock& task_clock();

}  // namespace omprof::clocks
