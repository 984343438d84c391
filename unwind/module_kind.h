// Which modules are "system" libraries (the C library, the loader, the vdso): their frames are
// named from the symbol table only (no DWARF lines, which would load large debug files for
// little value), and in user-model stacks they take their caller's side.
#pragma once

#include <string>

#include "proto/text.h"

namespace omprof::unwind {

inline bool is_system_module(const std::string& path) {
  const std::string f = text::base_name(path);
  static const char* const prefixes[] = {"libc.so",       "libm.so",  "ld-linux",
                                         "libpthread.so", "libdl.so", "librt.so",
                                         "libgcc_s.so",   "[vdso]",   "linux-vdso"};
  for (const char* p : prefixes)
    if (f.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace omprof::unwind
