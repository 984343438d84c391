// The loaded modules of the process, recorded as they load and unload (outside signal context),
// and a lock-free copy of the loader's list that libunwind can read from a signal handler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace omprof::unwind {

// Lower-case hex of a byte string (GNU build-ids as recorded in profiles).
std::string hex(const unsigned char* bytes, size_t n);

struct Segment {
  uint64_t start, limit, file_offset;
};

struct Module {
  std::string path;               // absolute file path, or "[vdso]"
  uint64_t load_bias = 0;         // dlpi_addr
  std::vector<Segment> segments;  // PT_LOAD ranges, absolute addresses
  std::string build_id;           // hex, "" if none
  bool unloaded = false;
  bool is_vdso = false;
  uint64_t start() const { return segments.empty() ? 0 : segments.front().start; }
  uint64_t limit() const { return segments.empty() ? 0 : segments.back().limit; }
  bool contains(uint64_t a) const {
    for (const auto& s : segments)
      if (a >= s.start && a < s.limit) return true;
    return false;
  }
};

// Re-reads the loader's module list: records new modules, marks vanished ones unloaded, and
// publishes a fresh handler-safe copy, leaving out the module loaded at `exclude_base` (a
// library about to be dlclose'd). Not async-signal-safe; takes a mutex.
void refresh_modules(uint64_t exclude_base = ~uint64_t(0));

// Called by dlclose after publishing a copy without the closing library and before unmapping
// it: must return once no signal handler that may still read the previous copy is running.
void set_handler_quiescence_wait(void (*wait)());

// Everything recorded so far (loaded and unloaded), in load order.
std::vector<Module> recorded_modules();

// Set while the calling thread runs omprof's signal handler: dl_iterate_phdr then serves the
// published copy instead of taking the loader's lock.
void set_in_signal_handler(bool on);

}  // namespace omprof::unwind
