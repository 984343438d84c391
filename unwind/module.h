// A loaded module (executable, shared library or vDSO) as a profile records it: recorded in the
// profiled process (collector/modules.h), symbolized offline (symbolizer.h). Pure data.
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

}  // namespace omprof::unwind
