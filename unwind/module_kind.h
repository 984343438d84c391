// What kind of module a frame is in, by its file's name; the collector and the viewer classify
// frames with these alone.
// "System" libraries (the C library, the loader, the vdso): their frames are named from the
// symbol table only (no DWARF lines, which would load large debug files for little value), and
// in user-model stacks they take their caller's side.
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

// omprof's own libraries (libomprof.so, libomprof_gomp.so, libomprof_mpi*.so).
inline bool is_omprof_module(const std::string& path) {
  return text::base_name(path).rfind("libomprof", 0) == 0;
}

// An OpenMP runtime (LLVM's libomp, GNU libgomp, Intel's libiomp5), or omprof's wrappers of
// one's entry points: frames of the runtime in user-model stacks.
inline bool is_omp_runtime_module(const std::string& path) {
  const std::string f = text::base_name(path);
  return f.rfind("libomp.so", 0) == 0 || f.rfind("libomp-", 0) == 0 ||
         f.rfind("libgomp.so", 0) == 0 || f.rfind("libiomp5.so", 0) == 0 || is_omprof_module(path);
}

}  // namespace omprof::unwind
