/* A library that uses MPI, for a program that does not name MPI itself (as a program using a
 * parallel HDF5 or PETSc does): omprof run must still find MPI among what the program loads. */
#include <mpi.h>

int mpi_indirect_size(int* argc, char*** argv) {
  int size = 0;
  MPI_Init(argc, argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return size;
}
