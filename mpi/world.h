// What the Init, Finalize and Abort wrappers of both bindings share (world.cc): the facts taken
// from MPI after it is initialized, and what is done before it ends.
#pragma once

namespace omprof::mpi {

// After MPI_Init or MPI_Init_thread returned (C or Fortran): rank, size, thread level, library.
void after_init();
// In MPI_Finalize, before PMPI_Finalize.
void before_finalize();
// In MPI_Abort, before PMPI_Abort: the profile is written now.
void before_abort(int errorcode);

}  // namespace omprof::mpi
