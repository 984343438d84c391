// A thread sampled by the task clock that context-switches very often moves to the cpu clock.
// The task clock's timer is stopped and restarted by the kernel at every switch of its thread
// (about 5 us a switch on some virtual machines, docs/semantics.md "Clocks"): a thread that
// switches thousands of times per second of CPU time, as spinning OpenMP threads do on a busy
// machine, would run measurably slower under omprof. The cpu clock costs nothing per switch
// (its samples come on kernel ticks). Only when `omprof run` chose the task clock itself.
#pragma once

#include <cstdint>

namespace omprof::handler {

struct SamplingClock;
struct ThreadState;

struct ClockFallback {
  const SamplingClock* from = nullptr;  // the task clock
  const SamplingClock* to = nullptr;    // the cpu clock
  uint64_t switches_per_cpu_s = 0;      // the limit; 0: never
};

// Set once before the handler is installed.
ClockFallback& clock_fallback();

// handler: called after each sample, instead of re-arming the thread's clock. Every few samples
// of a thread on the `from` clock, its switches per CPU-second since the last check; above the
// limit, the `to` clock is armed for the next sample and the `from` clock closed (it fired for
// this sample and is re-armed only by the handler, so no signal of it can follow). Returns true
// if the thread moved (its next sample is armed), false if the caller re-arms as usual.
bool leave_clock_if_switching(ThreadState* ts, uint64_t cpu_now_ns, uint64_t next_ns);

}  // namespace omprof::handler
