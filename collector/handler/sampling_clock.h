// A sampling clock: what delivers the profiling signal to a thread after each period of some
// clock (collector/clocks/ has one file per clock). Each thread has one, chosen when its
// sampling starts. Functions marked "handler" run in the signal handler and are
// async-signal-safe; the others run in ordinary code.
#pragma once

#include <signal.h>

#include <cstdint>

namespace omprof::handler {

struct ThreadState;

struct SamplingClock {
  const char* name;  // "cpu", "wall", "task"
  bool cpu_time;     // counts the thread's CPU time (else wall time)
  // Signals come only on kernel ticks (POSIX CPU-time timers): the handler then samples as a
  // renewal process weighted by the clock's advance (signal_handler.cc).
  bool on_ticks;
  // handler: the calling thread's reading of the clock being sampled.
  uint64_t (*now_ns)();
  // handler: whether this signal is this thread's sample (and not the program's own signal).
  bool (*owns_signal)(const ThreadState* ts, const siginfo_t* info);
  // handler: deliver the next signal after `ns` more of the clock; false if it cannot.
  bool (*rearm)(ThreadState* ts, uint64_t ns);
  // Starts sampling the calling thread (first signal after `first_ns`); false with
  // ts->timer_errno set if the clock cannot be used on this thread.
  bool (*arm)(ThreadState* ts, int signo, uint64_t first_ns);
  // Stops sampling: no more signals are generated (any thread, at most once per arm).
  void (*disarm)(ThreadState* ts);
  // format::kLost* bits this clock can tell about a thread whose samples went missing.
  uint32_t (*lost_cause)(const ThreadState* ts);
  // In a fork child: let go of what the parent's thread held (descriptors), without touching
  // anything the parent still uses.
  void (*release_in_child)(ThreadState* ts);
  // handler: this clock's signal may have been lost, merged with another of omprof's signals
  // that was pending (a sampled counter's overflow: signals sent by perf_event descriptors are
  // not queued like a POSIX timer's). Makes the clock signal again if it stopped waiting for
  // its re-arm, without moving its next sample. nullptr: its signals are never lost so.
  void (*revive)(ThreadState* ts);
};

}  // namespace omprof::handler
