// Process lifecycle of the collector: start (library constructor), thread start and exit,
// fork, and the one idempotent shutdown that stops sampling and writes the profile.
#pragma once

namespace omprof {

// First caller wins: atexit (registered at start) or the library destructor.
void shutdown_collector();

}  // namespace omprof
