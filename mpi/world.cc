// MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort (C bindings; the Fortran ones are in
// fortran_calls.cc), and what omprof does at these points: take the job's facts once MPI is up,
// and write the profile before MPI_Abort ends the job.
#include "mpi/world.h"

#include <dlfcn.h>
#include <mpi.h>

#include "mpi/measured_call.h"

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace omprof::mpi {

void after_init() {
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (!initialized) return;
  int rank = -1, size = -1, level = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Query_thread(&level);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  PMPI_Get_library_version(library, &length);
  // MPI_T events are an MPI 4.0 interface; Open MPI 4.1 has none.
  const char* note = dlsym(RTLD_DEFAULT, "MPI_T_event_get_num")
                         ? "the MPI library has MPI_T events; omprof does not count them yet"
                         : "the MPI library exposes no MPI_T events (an MPI 4.0 interface): "
                           "none counted";
  omprof_internal_mpi_initialized(rank, size, level, library, note);
}

void before_finalize() {
  // The cross-rank reduction will run here (docs/usage.md, MPI); each rank's profile is
  // written at exit, and OpenMP work after MPI_Finalize is still sampled.
}

void before_abort(int errorcode) {
  omprof_internal_mpi_aborting(errorcode);
}

}  // namespace omprof::mpi

OMPROF_EXPORT int MPI_Init(int* argc, char*** argv) {
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init);
  const int rc = PMPI_Init(argc, argv);
  measured.done(__builtin_return_address(0));
  omprof::mpi::after_init();
  return rc;
}

OMPROF_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init_thread);
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  measured.done(__builtin_return_address(0));
  omprof::mpi::after_init();
  return rc;
}

OMPROF_EXPORT int MPI_Finalize() {
  omprof::mpi::before_finalize();
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Finalize);
  const int rc = PMPI_Finalize();
  measured.done(__builtin_return_address(0));
  return rc;
}

OMPROF_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  omprof::mpi::before_abort(errorcode);
  return PMPI_Abort(comm, errorcode);
}
