// Whether a program loads MPI, read before running it: only then does `omprof run` preload the
// MPI wrappers (libomprof_mpi.so, mpi/), so that a program without MPI never loads MPI code.
#pragma once

#include <string>
#include <vector>

namespace omprof::launcher {

struct MpiCheck {
  int loads = -1;             // which of the given MPI libraries the program loads, -1: none
  std::string other_library;  // or another MPI library (e.g. Intel MPI's libmpi.so.12)
};

// The MPI library (soname, e.g. "libmpi.so.40") the wrappers at `wrappers` are linked with;
// "" if unreadable.
std::string wrapped_mpi_library(const std::string& wrappers);

// Asks the program's dynamic loader which libraries it would load (`ld.so --list`, which runs
// none of the program's code), with this process's environment.
// `mpi_sonames`: the libraries wrappers are built for (an empty name matches nothing).
MpiCheck check_mpi(const std::string& program, const std::vector<std::string>& mpi_sonames);

}  // namespace omprof::launcher
