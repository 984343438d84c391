// A thread's own object behind one of ThreadState's opaque pointers (the OpenMP model's,
// openmp/thread_model.h, and each adapter's, ompt/ompt_thread.h and libgomp/gomp_thread.h): made
// on the calling thread's first use, from the collector's private heap, and kept to the end.
// Never in the signal handler.
#pragma once

namespace omprof {

// Out of line: inline, the object's constructor made every accessor a call (docs/performance.md).
template <typename T>
[[gnu::noinline, gnu::cold]] T& make_thread_part(void*& slot) {
  T* part = new T;
  slot = part;
  return *part;
}

template <typename T>
inline T& thread_part(void*& slot) {
  if (slot) [[likely]]
    return *static_cast<T*>(slot);
  return make_thread_part<T>(slot);
}

}  // namespace omprof
