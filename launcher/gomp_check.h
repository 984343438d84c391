// Whether a program uses GNU libgomp, and whether LLVM libomp can stand in for it (it exports
// the GOMP ABI only up to GOMP_5.0.1), read from the program's ELF dynamic section.
#pragma once

#include <string>
#include <vector>

namespace omprof::launcher {

struct GompCheck {
  bool needs_libgomp = false;
  std::vector<std::string> missing_versions;  // GOMP_x versions libomp does not provide
};

GompCheck check_libgomp(const std::string& program, const std::string& libomp);

}  // namespace omprof::launcher
