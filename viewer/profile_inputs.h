// The profiles a command is given: directories expanded, each file loaded with a failure told
// in one line, and output files written whole or not at all.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "proto/profile_reader.h"
#include "viewer/symbolize.h"

namespace omprof::viewer {

// A directory stands for the profiles in it (what `omprof run -o DIR` wrote), in name order:
// *.omprof files, and the journals of processes that have not written theirs (still running,
// or dead without `omprof run` to recover them). A directory without any is an error of its
// own (status 1).
std::vector<std::string> expand_profile_arguments(const std::vector<std::string>& args,
                                                  int& status);

// "omprof: <why>" on standard error, and status 1.
void tell_unreadable(const format::ProfileError& e, int& status);

// Loads each file and calls `use` with it; one that cannot be read is told and sets status 1.
using ProfileUse = std::function<void(const format::Profile&)>;
void for_each_profile(const std::vector<std::string>& files, SymbolCache& symbols, int& status,
                      const ProfileUse& use);

// Writes `path` through a temporary file renamed at the end: a failed write never leaves a
// truncated file where a good one was expected. One line and status 1 on failure.
int write_file_atomically(const std::string& path, const char* command,
                          const std::function<void(std::ostream&)>& write);

}  // namespace omprof::viewer
