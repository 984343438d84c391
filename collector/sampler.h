// The profiling timers and the signal handler. One POSIX timer per thread, created on that
// thread with SIGEV_THREAD_ID, so each thread is sampled by its own CPU (or wall) clock.
#pragma once

#include "collector/thread_registry.h"

namespace omprof {

// Installs the handler for the configured signal. Ordinary context, once per process.
bool install_sampler();

// Creates and arms the calling thread's timer. Failures (EAGAIN when RLIMIT_SIGPENDING is
// exhausted) are counted and recorded on the thread, never fatal.
void arm_thread_timer(ThreadState* ts);

// Deletes a thread's timer; safe to call from any thread, and twice.
void disarm_thread_timer(ThreadState* ts);

// Ends a thread's sampling (ordinary context, any thread), `clock_now_ns` being its sampling
// clock now: records how long its timer was armed and, if samples are missing, why.
void end_thread_sampling(ThreadState* ts, uint64_t clock_now_ns);

// Whether the thread's task-clock descriptor is still the one omprof opened.
bool owns_task_clock_fd(const ThreadState* ts);

// Measured at most once per handler call; exposed for the benchmark.
struct HandlerStats {
  uint64_t calls;
  uint64_t total_ns;
};
HandlerStats handler_stats();

// Around code that unwinds the calling thread outside the handler (the OpenMP fork callback):
// samples arriving meanwhile are deferred, then recorded with the stack that code captured.
void begin_deferring_samples(ThreadState* ts);
void end_deferring_samples(ThreadState* ts, const uint64_t* frames, uint32_t depth, bool truncated);

}  // namespace omprof
