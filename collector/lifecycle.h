// Process lifecycle of the collector: start (library constructor), thread start and exit,
// fork, and the one idempotent shutdown that stops sampling and writes the profile.
#pragma once

#include "collector/writer/profile_writer.h"

namespace omprof {

// First caller wins: on_exit (registered at start, knows the exit status) or the library
// destructor (ending unknown).
void shutdown_collector(ProcessEnding ending = {});

}  // namespace omprof
