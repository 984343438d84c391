// What omprof's MPI wrappers (mpi/, libomprof_mpi.so, preloaded only into MPI programs) call in
// the collector: marking the calling thread "inside MPI call n" while a wrapped call runs, and
// the facts MPI gives once initialized. C linkage; exported from libomprof.so. Ordinary
// context (never in a signal handler).
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One wrapped call in progress, on the wrapper's stack.
struct omprof_mpi_call {
  uint64_t start_ns;
  uint64_t cpu_start_ns;  // thread CPU clock at the start, with OMPROF_MPI_CPU=1
  uint64_t site;          // the call site (the wrapper's return address - 1), 0 if unknown
  uint32_t call;  // proto/mpi_calls.h; 0: not measured (nested in another MPI call, or no state)
};

// Marks the calling thread as inside `call` made at `call_site` (the wrapper's return address)
// (the handler's samples then say so; the journal holds it, should the process die inside it)
// and reads the clock (and the thread CPU clock, with OMPROF_MPI_CPU=1). A call made while the
// thread is already inside one is not measured again.
void omprof_internal_mpi_enter(struct omprof_mpi_call* c, uint32_t call, uint64_t call_site);
// Ends the call: its wall time becomes an exact MPI wait of the thread, attributed to the call
// site, the parallel region and the explicit region.
void omprof_internal_mpi_leave(struct omprof_mpi_call* c);
// After MPI_Init: rank and size in MPI_COMM_WORLD, the thread level granted, the library's
// version string, and a note for the report header (what could not be measured), or NULL.
void omprof_internal_mpi_initialized(int rank, int size, int thread_level, const char* library,
                                     const char* note);
// MPI_Finalize was called: the end of the POP window (docs/semantics.md, "MPI").
void omprof_internal_mpi_finalizing(void);
// MPI_Abort is about to end the job: write the profile now (exit handlers may never run).
void omprof_internal_mpi_aborting(int errorcode);

// How the collector talks to the other ranks for the in-job summary: byte messages on omprof's
// own communicator (a duplicate of MPI_COMM_WORLD), implemented by the MPI wrappers with PMPI
// calls. The collector owns every buffer (its private heap), the wrappers allocate nothing.
// Each function returns 0 or the MPI error code.
struct omprof_mpi_transport {
  int rank, size;
  int (*send)(int dest, const void* data, uint64_t bytes);
  int (*probe)(int source, uint64_t* bytes);  // waits for the next message from `source`
  int (*recv)(int source, void* data, uint64_t bytes);
  int (*bcast)(void* data, uint64_t bytes);  // from rank 0
  // Reduces `count` records of `record_bytes` each onto rank 0 with `combine` (in (+) inout),
  // a commutative operation; MPI's own reduction tree does the combining.
  int (*reduce)(const void* in, void* out, uint64_t count, uint64_t record_bytes,
                void (*combine)(const void* in, void* inout, uint64_t count));
};

// MPI_Finalize was called on every rank (the wrappers checked): the cross-rank summary,
// collective over all ranks through `t`; rank 0 writes it into the output directory.
void omprof_internal_mpi_summarize(const struct omprof_mpi_transport* t);
// omprof_write_mpi_summary (include/omprof/omprof.h), collective: 0 or an OMPROF_ERR_ code,
// the same on every rank.
int omprof_internal_mpi_write_summary(const struct omprof_mpi_transport* t, const char* path,
                                      int strict, int csv);
// The summary cannot be made: rank 0 (or this rank, if it ends the job) writes why.
void omprof_internal_mpi_summary_missing(const char* why);

#ifdef __cplusplus
}
#endif
