// Why the loader would not preload the collector into a program, read before running it, so
// that "no profile" names the real cause.
#pragma once

#include <string>

namespace omprof::launcher {

// "" if LD_PRELOAD reaches the program (or it is not an ELF file: a script's interpreter is
// checked when it runs); otherwise why not, as a clause ("is statically linked ...").
std::string why_preload_is_ignored(const std::string& program);

}  // namespace omprof::launcher
