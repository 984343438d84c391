#include "collector/task_clock.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace omprof {

int open_task_clock(pid_t tid, uint64_t period_ns) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = period_ns;
  attr.disabled = 1;
  attr.wakeup_events = 1;
  return int(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace omprof
