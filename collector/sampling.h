// Starting and ending the sampling of threads (ordinary context). The handler itself is in
// handler/signal_handler.h; the clocks that signal it are in clocks/.
#pragma once

#include "collector/thread_registry.h"

namespace omprof {

// Installs the profiling signal's handler with the configured parameters. Once per process.
bool install_sampler();

// Arms the calling thread's sampling clock. Failures (EAGAIN when RLIMIT_SIGPENDING is
// exhausted) are counted and recorded on the thread, never fatal.
void start_thread_clock(ThreadState* ts);

// Ends a thread's sampling (any thread), `cpu_ns` and `mono_ns` being its CPU clock and the
// monotonic clock now: records how long its clock was armed and, if samples are missing, why;
// then disarms the clock. Safe to call twice.
void end_thread_sampling(ThreadState* ts, uint64_t cpu_ns, uint64_t mono_ns);

// In a fork child: the parent's threads' clocks are let go.
void release_clocks_in_child();

// Measured at most once per handler call (OMPROF_TIME_HANDLER=1); for the benchmark.
struct HandlerStats {
  uint64_t calls;
  uint64_t total_ns;
};
HandlerStats handler_stats();

}  // namespace omprof
