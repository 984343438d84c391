// What the profile's header says about MPI (collector/mpi_bridge.cc fills it in when the MPI
// wrappers run; proto/omprof.proto, Header.mpi_*). Ordinary context.
#pragma once

#include <cstdint>

namespace omprof {

struct MpiFacts {
  bool initialized = false;     // MPI_Init returned
  bool calls_measured = false;  // a wrapped call ran: MPI waits are in ThreadProfile.wait
  bool aborted = false;         // the program called MPI_Abort
  bool summary_done = false;    // the in-job summary was made, or said missing
  int rank = -1, size = -1, thread_level = -1;
  // The POP window, in ns since the run start: MPI_Init returned, MPI_Finalize began (0: not).
  uint64_t init_end_ns = 0, finalize_start_ns = 0;
  bool cpu_exact = false;  // MPI waits carry their thread CPU time (omprof run --mpi-cpu)
  char library[256] = {0};
  char note[256] = {0};  // e.g. that the library exposes no MPI_T events
};

const MpiFacts& mpi_facts();
// At shutdown: if MPI was initialized and no summary was attempted (the program never called
// MPI_Finalize), rank 0 says the summary is missing.
void mpi_summary_never_made();
// At exit: an MPI library in the process without omprof's MPI wrappers (the launcher did not see
// it, --mpi=off, or a dlopen) means time in MPI went unmeasured; the run's report says so.
void warn_if_mpi_unmeasured();
void mpi_summary_attempted();

}  // namespace omprof
