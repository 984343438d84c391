// Why the kernel refused a perf_event_open (the task clock, --counters), in the user's terms.
#pragma once

#include <string>

namespace omprof::launcher {

// strerror(error), and for a permission error what kernel.perf_event_paranoid allows: omprof
// counts a thread's kernel-mode time and events too, which an unprivileged process may only at
// level 1 or lower (or with CAP_PERFMON); level 2 allows user-mode counting only.
std::string perf_refusal(int error);

}  // namespace omprof::launcher
