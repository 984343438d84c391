// Address -> functions, source files and lines (inline frames included), with libdw/libdwfl.
// Runs at the end of the run, outside signal context.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "unwind/module.h"

namespace omprof::unwind {

struct SourceFrame {
  std::string function;     // demangled
  std::string system_name;  // linkage (mangled) name, "" when unknown
  std::string file;
  int64_t line = 0;
};

struct Symbolized {
  int module = -1;                  // index into the module list, -1 if none
  std::vector<SourceFrame> frames;  // innermost inline first; the last is the real function
  // address - start of the function symbol holding it (0 when no symbol is known): names a code
  // address without a line table, e.g. "main+0x1a3".
  uint64_t symbol_offset = 0;
};

class Symbolizer {
 public:
  // With `system_lines` false, system libraries (module_kind.h) get names but no lines. A module
  // whose file's GNU build-id differs from the recorded one (the file changed since the run) is
  // not used: its addresses get no names rather than wrong ones (see problem()).
  explicit Symbolizer(const std::vector<Module>& modules, bool system_lines = false);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  Symbolized lookup(uint64_t address) const;
  // The line of the first line-table row at `address` (0 when none): at a function's entry
  // several rows can share the address (GCC: a construct's pragma, then its body's first
  // statement), and lookup() reads the last.
  int64_t first_line_at(uint64_t address) const;
  // Why module `i` cannot be symbolized ("" when it can, or when it was not asked for).
  const std::string& problem(size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string demangle(const std::string& name);

}  // namespace omprof::unwind
