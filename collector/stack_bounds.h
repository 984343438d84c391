// Where a thread's stack ends, so that the signal handler can tell whether the stack left below
// the interrupted frame holds a full sample (handler/signal_handler.cc, stack_is_short). Read
// without allocating (pthread_getattr_np calls the program's malloc): from the attributes the
// program gave pthread_create, the thread pointer, and RLIMIT_STACK for the main thread.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace omprof {

struct StackBounds {
  uintptr_t low = 0, high = 0;  // [low, high); both 0 when unknown (no check is made)
};

// What the attributes passed to pthread_create say of the new thread's stack (nullptr: the
// default attributes). Called by the creating thread.
struct StackRequest {
  uintptr_t addr = 0;  // the lowest address of a stack the program supplied, else 0
  size_t size = 0;
};
StackRequest stack_request(const pthread_attr_t* attr);

// On the new thread, before it runs the program's code: its usable stack range. glibc places
// the thread descriptor and static TLS at the top of a stack it allocates, with the thread
// pointer at the descriptor, so the usable range ends `size` bytes below the thread pointer
// plus the descriptor's size (about 2.3 KB, counted as usable here: the handler's margin
// covers it).
StackBounds new_thread_bounds(StackRequest r);

// The main thread's stack: from the top the kernel gave it down to RLIMIT_STACK, when that is
// finite (the stack grows on demand up to it); else unknown.
StackBounds main_thread_bounds();

}  // namespace omprof
