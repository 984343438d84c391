// Whether a program loads MPI, read before running it: only then does `omprof run` preload the
// MPI wrappers (libomprof_mpi.so, mpi/), so that a program without MPI never loads MPI code.
#pragma once

#include <string>

namespace omprof::launcher {

struct MpiCheck {
  bool loads_mpi = false;     // the program loads the MPI library the wrappers are built for
  std::string other_library;  // or another MPI library (e.g. MPICH's libmpich.so.12)
};

// The MPI library (soname, e.g. "libmpi.so.40") the wrappers at `wrappers` are linked with;
// "" if unreadable.
std::string wrapped_mpi_library(const std::string& wrappers);

// Asks the program's dynamic loader which libraries it would load (`ld.so --list`, which runs
// none of the program's code), with this process's environment.
MpiCheck check_mpi(const std::string& program, const std::string& mpi_soname);

}  // namespace omprof::launcher
