// What the handler asks of the OpenMP runtime, through OMPT's inquiry functions (which OMPT
// declares async-signal-safe): the sampled thread's state and the parallel region it is in.
// In the signal handler: async-signal-safe. Without OMPT, samples say "not an OpenMP thread".
#pragma once

#include <omp-tools.h>

#include "collector/handler/thread_state.h"
#include "proto/state_codes.h"

namespace omprof::handler {

// Whether a pointer the runtime handed over can be dereferenced: user space, 8-byte aligned,
// not in the first page (OMPT fields not yet set hold small values or garbage).
inline bool plausible_pointer(const void* p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  return v >= 4096 && (v & 7) == 0 && v < (uintptr_t(1) << 47);
}

// Set by the OMPT tool when the runtime initializes it (ordinary context), cleared at finalize.
void set_ompt_inquiry(ompt_get_state_t get_state, ompt_get_thread_data_t get_thread_data,
                      ompt_get_parallel_info_t get_parallel_info);
void clear_ompt_inquiry();
// The program runs on GNU libgomp under omprof's wrappers: without OMPT, the handler reads the
// thread's state and region from what the wrappers wrote (ThreadState::omp, omp_published.h
// GompPublished).
void set_gomp_inquiry();

// The calling thread's innermost parallel region's value (parallel_value.h), 0 if none.
uint64_t innermost_parallel_value();

// The creation record of the deferred task whose own code the calling thread runs (0: none,
// or the runtime is starting or finishing the task: its exit frame is not set then).
uint32_t running_task_origin(const ThreadState* ts);

// Fills the OpenMP part of `ctx` (state, fork id, thread number, task origin) for the calling
// thread.
void read_omp_context(const ThreadState* ts, SampleContext& ctx);

}  // namespace omprof::handler
