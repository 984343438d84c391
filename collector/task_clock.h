// Opening a perf_event task-clock on a thread (--clock task): the one definition used by the
// collector's sampler and by the launcher's availability probe.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace omprof {

// A disabled task-clock counter on thread `tid` (0: the caller) that overflows every
// `period_ns` of its CPU time. Returns the fd, or -1 with errno set.
int open_task_clock(pid_t tid, uint64_t period_ns);

}  // namespace omprof
