#include "collector/stack_bounds.h"

#include <sys/resource.h>

extern "C" void* __libc_stack_end;  // ld.so: the main thread's stack top, below argv and env

namespace omprof {

StackRequest stack_request(const pthread_attr_t* attr) {
  StackRequest r;
  pthread_attr_t defaults;
  if (!attr) {
    if (pthread_attr_init(&defaults) != 0) return r;
    attr = &defaults;
  }
  void* addr = nullptr;
  size_t size = 0;
  // glibc keeps the stack's top (0 when the program supplied none) and returns top - size.
  if (pthread_attr_getstack(attr, &addr, &size) == 0 && addr && uintptr_t(addr) + size != 0) {
    r.addr = uintptr_t(addr);
    r.size = size;
  } else if (pthread_attr_getstacksize(attr, &size) == 0) {
    r.size = size;  // the default when the program set none
  }
  if (attr == &defaults) pthread_attr_destroy(&defaults);
  return r;
}

StackBounds new_thread_bounds(StackRequest r) {
  StackBounds b;
  if (r.size == 0) return b;
  if (r.addr) {
    b.low = r.addr;
    b.high = r.addr + r.size;
    return b;
  }
  uintptr_t thread_pointer = 0;
  __asm__("mov %%fs:0, %0" : "=r"(thread_pointer));  // x86-64: the TCB points to itself
  if (thread_pointer <= r.size) return b;
  b.low = thread_pointer - r.size;
  b.high = thread_pointer;
  return b;
}

StackBounds main_thread_bounds() {
  StackBounds b;
  rlimit limit{};
  const auto top = uintptr_t(__libc_stack_end);
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || !top ||
      top <= limit.rlim_cur)
    return b;
  b.low = top - limit.rlim_cur;
  b.high = top;
  return b;
}

}  // namespace omprof
