// The OpenMP wait a thread is in now, published in its journal record for a live reader
// (`omprof top`) and for a journal whose process died inside it (proto/journal.h
// ThreadRecord.omp_wait_state). Both runtimes' adapters call these at their outermost wait's
// begin and end: the OMPT callbacks (ompt/exact_waits.cc) and the libgomp wrappers
// (collector/libgomp/). Two stores each, on the thread's own record; never in the signal handler.
#pragma once

#include <atomic>
#include <cstdint>

#include "proto/journal.h"

namespace omprof::open_wait {

inline void begin(journal::ThreadRecord& r, uint32_t state, uint64_t start_mono_ns) {
  r.omp_wait_start_mono_ns = start_mono_ns;
  r.omp_wait_state.store(state, std::memory_order_release);
}

inline void end(journal::ThreadRecord& r) {
  r.omp_wait_state.store(0, std::memory_order_release);
}

}  // namespace omprof::open_wait
