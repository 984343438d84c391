// The profiling signal handler. In the signal handler: async-signal-safe, like everything in
// this folder (no allocation, no locks, no stdio, no symbol lookup).
#pragma once

#include <signal.h>

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::handler {

// The handler for the profiling signal: records one sample of the calling thread and re-arms
// its clock, or passes a signal that is not omprof's to the program's own disposition.
void on_profiling_signal(int signo, siginfo_t* info, void* ucontext);

// Ordinary context, at the end of a Section::kUnwinding scope on the calling thread: records
// the samples that landed meanwhile, with the stack that code captured.
void take_deferred_samples(ThreadState* ts, const uint64_t* frames, uint32_t depth, bool truncated);

// A thread's first sample is due at a random instant of its first period.
uint64_t first_interval_ns(ThreadState* ts);

}  // namespace omprof::handler
