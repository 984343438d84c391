// The loaded modules of the process, recorded as they load and unload (ordinary context: the
// dlopen and dlclose interposers and the collector's start), and published to the handler
// (handler/phdr_snapshot.h) so that libunwind can find unwind tables from a signal handler.
#pragma once

#include <cstdint>
#include <vector>

#include "unwind/module.h"

namespace omprof {

// Re-reads the loader's module list: records new modules, marks vanished ones unloaded, and
// publishes a fresh handler-safe copy, leaving out the module loaded at `exclude_base` (a
// library about to be dlclose'd). Takes a mutex.
void refresh_modules(uint64_t exclude_base = ~uint64_t(0));

// Called by dlclose after publishing a copy without the closing library and before unmapping
// it: must return once no signal handler that may still read the previous copy is running.
void set_handler_quiescence_wait(void (*wait)());

// Told of each module as it is first found and as it is found gone (under the module lock).
struct ModuleObserver {
  void (*loaded)(const unwind::Module&) = nullptr;
  void (*unloaded)(const unwind::Module&) = nullptr;
};
void set_module_observer(ModuleObserver o);

// Everything recorded so far (loaded and unloaded), in load order.
std::vector<unwind::Module> recorded_modules();

}  // namespace omprof
