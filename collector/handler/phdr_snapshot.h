// The loader's module list as libunwind sees it from the signal handler. libunwind finds unwind
// tables with dl_iterate_phdr, which takes the loader's lock: a sample landing inside dlopen
// would deadlock. omprof interposes dl_iterate_phdr; in Section::kHandler (reentrancy.h) it
// iterates a copy published from ordinary code (collector/modules.h) whenever modules change.
// Iterating: async-signal-safe. Publishing: ordinary context.
#pragma once

#include <link.h>

#include <cstdint>

namespace omprof::handler {

// Ordinary context. Publishes a copy of `infos`, leaving out the module loaded at `exclude_base` (a
// library about to be dlclose'd). The previous copy is leaked on purpose: a handler on another
// thread may still be reading it, and dlopen/dlclose are rare (a few bytes per module each).
void publish_phdr_snapshot(const dl_phdr_info* infos, size_t count, uint64_t exclude_base);

}  // namespace omprof::handler
