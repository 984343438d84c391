// What makes profiles runs of one configuration, so that `view` and `export` may merge them
// (issue 37: two different runs given to `view` were summed into one flame graph without a
// word). The ranks of one MPI job and repeated runs of one command merge; profiles of another
// program, command line, job size or OpenMP team size are refused, pointing to `omprof diff`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/profile_reader.h"

namespace omprof::viewer {

struct RunConfiguration {
  std::string program;
  std::vector<std::string> argv;
  int32_t mpi_size = -1;
  uint32_t max_team = 0;  // the largest OpenMP team the run forked
};
RunConfiguration configuration_of(const format::Profile& p);

// "" when profiles of `a` and `b` may be merged, else what differs ("the command: ...").
std::string configuration_difference(const RunConfiguration& a, const RunConfiguration& b);

// Admits the profiles of one configuration, the first one's.
class MergeGuard {
 public:
  // False, with `error` set to one line naming both files, when `p` is another configuration.
  bool admit(const format::Profile& p, std::string& error);

 private:
  bool first_ = true;
  RunConfiguration config_;
  std::string first_path_;
};

}  // namespace omprof::viewer
