// The one re-entrancy guard of the collector. In the signal handler: async-signal-safe.
//
// A profiling signal can land while the same thread is inside omprof code that the handler
// would re-enter: libunwind's per-thread state (not reentrant) while the OpenMP fork callback
// unwinds its own stack, or the handler itself. Each thread records which of these it is in,
// and every piece of code that must behave differently asks this one variable:
//   kProgram   - the program's own code (or omprof code the handler cannot disturb);
//   kUnwinding - omprof unwinds this thread outside the handler: a sample landing now is
//                deferred and recorded by that code with the stack it is capturing
//                (signal_handler.h, take_deferred_samples);
//   kHandler   - omprof's signal handler runs: dl_iterate_phdr serves the handler-safe copy of
//                the module list instead of taking the loader's lock (phdr_snapshot.h).
#pragma once

#include <cstdint>

namespace omprof::handler {

enum class Section : uint8_t { kProgram, kUnwinding, kHandler };

Section current_section();

// Sets the calling thread's section for the lifetime of the scope, then restores the previous.
class SectionScope {
 public:
  explicit SectionScope(Section s);
  ~SectionScope();
  SectionScope(const SectionScope&) = delete;
  SectionScope& operator=(const SectionScope&) = delete;

 private:
  Section previous_;
};

}  // namespace omprof::handler
