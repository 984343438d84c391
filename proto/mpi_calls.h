// The MPI calls omprof intercepts (mpi/), numbered as profiles record them: a thread inside call
// n has the state format::kMpiFirst + n (Sample.omp_state, WaitEntry.omp_state). The numbers
// are part of the format: append only, never renumber.
#pragma once

#include <cctype>
#include <cstdint>
#include <string_view>

#include "proto/state_codes.h"

namespace omprof::format {

// One call per line, kept by hand (clang-format 14 reflows this macro body unstably).
// clang-format off
#define OMPROF_MPI_CALLS(X) \
  X(Init, 1) \
  X(Init_thread, 2) \
  X(Finalize, 3) \
  X(Send, 4) \
  X(Ssend, 5) \
  X(Bsend, 6) \
  X(Rsend, 7) \
  X(Recv, 8) \
  X(Sendrecv, 9) \
  X(Sendrecv_replace, 10) \
  X(Wait, 11) \
  X(Waitall, 12) \
  X(Waitany, 13) \
  X(Waitsome, 14) \
  X(Test, 15) \
  X(Testall, 16) \
  X(Testany, 17) \
  X(Testsome, 18) \
  X(Probe, 19) \
  X(Iprobe, 20) \
  X(Barrier, 21) \
  X(Bcast, 22) \
  X(Reduce, 23) \
  X(Allreduce, 24) \
  X(Gather, 25) \
  X(Gatherv, 26) \
  X(Scatter, 27) \
  X(Scatterv, 28) \
  X(Allgather, 29) \
  X(Allgatherv, 30) \
  X(Alltoall, 31) \
  X(Alltoallv, 32) \
  X(Reduce_scatter, 33) \
  X(Reduce_scatter_block, 34) \
  X(Scan, 35) \
  X(Exscan, 36) \
  X(Alltoallw, 37)
// clang-format on

enum MpiCall : uint32_t {
  kMpiNone = 0,
#define OMPROF_MPI_ENUM(name, n) kMpi_##name = n,
  OMPROF_MPI_CALLS(OMPROF_MPI_ENUM)
#undef OMPROF_MPI_ENUM
      kMpiCallLimit  // one past the last
};

constexpr bool is_mpi_state(uint32_t state) {
  return state > kMpiFirst && state < kMpiFirst + kMpiCallLimit;
}
constexpr uint32_t mpi_state(MpiCall call) {
  return kMpiFirst + call;
}
constexpr uint32_t mpi_call_of(uint32_t state) {
  return is_mpi_state(state) ? state - kMpiFirst : kMpiNone;
}

// "MPI_Allreduce", nullptr for numbers this reader does not know.
inline const char* mpi_call_name(uint32_t call) {
  switch (call) {
#define OMPROF_MPI_NAME(name, n) \
  case n:                        \
    return "MPI_" #name;
    OMPROF_MPI_CALLS(OMPROF_MPI_NAME)
#undef OMPROF_MPI_NAME
    default:
      return nullptr;
  }
}

// Whether a function's name is an entry point of `call` ("MPI_Allreduce"): in either binding
// ("MPI_Allreduce", "mpi_allreduce_", "MPI_ALLREDUCE": case and trailing underscores aside),
// and with `or_profiling`, also its profiling twin ("PMPI_Allreduce", "pmpi_allreduce_").
inline bool names_mpi_call(std::string_view name, const char* call, bool or_profiling = false) {
  if (!call) return false;
  if (or_profiling && name.size() > 1 && (name[0] == 'p' || name[0] == 'P')) name.remove_prefix(1);
  while (!name.empty() && name.back() == '_') name.remove_suffix(1);
  const std::string_view want(call);
  if (name.size() != want.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) !=
        std::tolower(static_cast<unsigned char>(want[i])))
      return false;
  return true;
}

// The user view's leaf for a thread inside the call: "<mpi:MPI_Allreduce>".
inline const char* mpi_pseudo_frame(uint32_t call) {
  switch (call) {
#define OMPROF_MPI_FRAME(name, n) \
  case n:                         \
    return "<mpi:MPI_" #name ">";
    OMPROF_MPI_CALLS(OMPROF_MPI_FRAME)
#undef OMPROF_MPI_FRAME
    default:
      return "<mpi:unknown>";
  }
}

}  // namespace omprof::format
