// The collector's own heap (private_heap.cc): what other collector code needs to know of it.
#pragma once

namespace omprof {

// Whether the calling thread holds the heap's lock: code that a signal handler can reach (the
// region API) must not allocate then, or it waits forever for itself. GNU __thread, not C++
// thread_local: no initialization wrapper, one TLS read inlined into every region call.
extern __thread bool t_private_heap_held __attribute__((tls_model("initial-exec")));
inline bool private_heap_held_here() {
  return t_private_heap_held;
}

}  // namespace omprof
