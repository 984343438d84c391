// The collector's own heap (private_heap.cc): what other collector code needs to know of it.
#pragma once

namespace omprof {

// Whether the calling thread holds the heap's lock: code that a signal handler can reach (the
// region API) must not allocate then, or it waits forever for itself.
bool private_heap_held_here();

}  // namespace omprof
