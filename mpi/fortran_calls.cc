// The Fortran bindings (mpif.h and `use mpi`: mpi_allreduce_ and mpi_allreduce__) of the MPI
// calls omprof measures. Open MPI's Fortran library calls PMPI_ directly, bypassing the C
// wrappers, so these wrap the Fortran symbols and forward to the library's pmpi_ twins, found
// with dlsym(RTLD_NEXT) at the first call: a C program never loads the Fortran library.
// Every Fortran argument is an address. `use mpi_f08` is not intercepted (docs/usage.md).
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "mpi/measured_call.h"
#include "mpi/world.h"

namespace omprof::mpi {

void* fortran_pmpi(std::atomic<void*>& cache, const char* name) {
  void* f = cache.load(std::memory_order_acquire);
  if (!f) {
    f = dlsym(RTLD_NEXT, name);
    if (!f) {
      // Only a Fortran MPI caller reaches here, so its library is loaded.
      std::fprintf(stderr, "omprof: %s not found in the MPI Fortran library\n", name);
      std::abort();
    }
    cache.store(f, std::memory_order_release);
  }
  return f;
}

}  // namespace omprof::mpi

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

// Parameter and argument lists of n addresses.
#define OMPROF_P1 void* a1
#define OMPROF_A1 a1
#define OMPROF_P2 OMPROF_P1, void* a2
#define OMPROF_A2 OMPROF_A1, a2
#define OMPROF_P3 OMPROF_P2, void* a3
#define OMPROF_A3 OMPROF_A2, a3
#define OMPROF_P4 OMPROF_P3, void* a4
#define OMPROF_A4 OMPROF_A3, a4
#define OMPROF_P5 OMPROF_P4, void* a5
#define OMPROF_A5 OMPROF_A4, a5
#define OMPROF_P6 OMPROF_P5, void* a6
#define OMPROF_A6 OMPROF_A5, a6
#define OMPROF_P7 OMPROF_P6, void* a7
#define OMPROF_A7 OMPROF_A6, a7
#define OMPROF_P8 OMPROF_P7, void* a8
#define OMPROF_A8 OMPROF_A7, a8
#define OMPROF_P9 OMPROF_P8, void* a9
#define OMPROF_A9 OMPROF_A8, a9
#define OMPROF_P10 OMPROF_P9, void* a10
#define OMPROF_A10 OMPROF_A9, a10
#define OMPROF_P13 OMPROF_P10, void *a11, void *a12, void *a13
#define OMPROF_A13 OMPROF_A10, a11, a12, a13

// mpi_<lower>_ and mpi_<lower>__ forwarding n addresses to pmpi_<lower>_.
#define OMPROF_WRAP_F(lower, name, n)                                                          \
  namespace {                                                                                  \
  std::atomic<void*> g_pmpi_##lower{nullptr};                                                  \
  void measured_##lower(void* site, OMPROF_P##n) {                                             \
    using Real = void (*)(OMPROF_P##n);                                                        \
    Real real =                                                                                \
        reinterpret_cast<Real>(omprof::mpi::fortran_pmpi(g_pmpi_##lower, "pmpi_" #lower "_")); \
    omprof::mpi::MeasuredCall measured(omprof::format::kMpi_##name, site);                     \
    real(OMPROF_A##n);                                                                         \
    measured.done();                                                                           \
  }                                                                                            \
  }                                                                                            \
  OMPROF_EXPORT void mpi_##lower##_(OMPROF_P##n) {                                             \
    measured_##lower(__builtin_return_address(0), OMPROF_A##n);                                \
  }                                                                                            \
  OMPROF_EXPORT void mpi_##lower##__(OMPROF_P##n) {                                            \
    measured_##lower(__builtin_return_address(0), OMPROF_A##n);                                \
  }

OMPROF_WRAP_F(send, Send, 7)
OMPROF_WRAP_F(ssend, Ssend, 7)
OMPROF_WRAP_F(bsend, Bsend, 7)
OMPROF_WRAP_F(rsend, Rsend, 7)
OMPROF_WRAP_F(recv, Recv, 8)
OMPROF_WRAP_F(sendrecv, Sendrecv, 13)
OMPROF_WRAP_F(sendrecv_replace, Sendrecv_replace, 10)
OMPROF_WRAP_F(wait, Wait, 3)
OMPROF_WRAP_F(waitall, Waitall, 4)
OMPROF_WRAP_F(waitany, Waitany, 5)
OMPROF_WRAP_F(waitsome, Waitsome, 6)
OMPROF_WRAP_F(test, Test, 4)
OMPROF_WRAP_F(testall, Testall, 5)
OMPROF_WRAP_F(testany, Testany, 6)
OMPROF_WRAP_F(testsome, Testsome, 6)
OMPROF_WRAP_F(probe, Probe, 5)
OMPROF_WRAP_F(iprobe, Iprobe, 6)
OMPROF_WRAP_F(barrier, Barrier, 2)
OMPROF_WRAP_F(bcast, Bcast, 6)
OMPROF_WRAP_F(reduce, Reduce, 8)
OMPROF_WRAP_F(allreduce, Allreduce, 7)
OMPROF_WRAP_F(gather, Gather, 9)
OMPROF_WRAP_F(gatherv, Gatherv, 10)
OMPROF_WRAP_F(scatter, Scatter, 9)
OMPROF_WRAP_F(scatterv, Scatterv, 10)
OMPROF_WRAP_F(allgather, Allgather, 8)
OMPROF_WRAP_F(allgatherv, Allgatherv, 9)
OMPROF_WRAP_F(alltoall, Alltoall, 8)
OMPROF_WRAP_F(alltoallv, Alltoallv, 10)
OMPROF_WRAP_F(alltoallw, Alltoallw, 10)
OMPROF_WRAP_F(reduce_scatter, Reduce_scatter, 7)
OMPROF_WRAP_F(reduce_scatter_block, Reduce_scatter_block, 7)
OMPROF_WRAP_F(scan, Scan, 7)
OMPROF_WRAP_F(exscan, Exscan, 7)

// Init, Init_thread, Finalize and Abort: measured, and the job's facts taken or handed over.
namespace {
std::atomic<void*> g_pmpi_init{nullptr}, g_pmpi_init_thread{nullptr}, g_pmpi_finalize{nullptr},
    g_pmpi_abort{nullptr};

void init(void* site, void* ierr) {
  auto real =
      reinterpret_cast<void (*)(void*)>(omprof::mpi::fortran_pmpi(g_pmpi_init, "pmpi_init_"));
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init, site);
  real(ierr);
  measured.done();
  omprof::mpi::after_init();
}
void init_thread(void* site, void* required, void* provided, void* ierr) {
  auto real = reinterpret_cast<void (*)(void*, void*, void*)>(
      omprof::mpi::fortran_pmpi(g_pmpi_init_thread, "pmpi_init_thread_"));
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Init_thread, site);
  real(required, provided, ierr);
  measured.done();
  omprof::mpi::after_init();
}
void finalize(void* site, void* ierr) {
  auto real = reinterpret_cast<void (*)(void*)>(
      omprof::mpi::fortran_pmpi(g_pmpi_finalize, "pmpi_finalize_"));
  // The summary's time is time in MPI_Finalize, outside the POP window.
  omprof::mpi::MeasuredCall measured(omprof::format::kMpi_Finalize, site);
  omprof::mpi::before_finalize();
  real(ierr);
  measured.done();
}
void abort_job(void* comm, void* errorcode, void* ierr) {
  auto real = reinterpret_cast<void (*)(void*, void*, void*)>(
      omprof::mpi::fortran_pmpi(g_pmpi_abort, "pmpi_abort_"));
  omprof::mpi::before_abort(*static_cast<int*>(errorcode));
  real(comm, errorcode, ierr);
}
}  // namespace

OMPROF_EXPORT void mpi_init_(void* ierr) {
  init(__builtin_return_address(0), ierr);
}
OMPROF_EXPORT void mpi_init__(void* ierr) {
  init(__builtin_return_address(0), ierr);
}
OMPROF_EXPORT void mpi_init_thread_(void* required, void* provided, void* ierr) {
  init_thread(__builtin_return_address(0), required, provided, ierr);
}
OMPROF_EXPORT void mpi_init_thread__(void* required, void* provided, void* ierr) {
  init_thread(__builtin_return_address(0), required, provided, ierr);
}
OMPROF_EXPORT void mpi_finalize_(void* ierr) {
  finalize(__builtin_return_address(0), ierr);
}
OMPROF_EXPORT void mpi_finalize__(void* ierr) {
  finalize(__builtin_return_address(0), ierr);
}
OMPROF_EXPORT void mpi_abort_(void* comm, void* errorcode, void* ierr) {
  abort_job(comm, errorcode, ierr);
}
OMPROF_EXPORT void mpi_abort__(void* comm, void* errorcode, void* ierr) {
  abort_job(comm, errorcode, ierr);
}
