// One intercepted MPI call, measured: the thread is "inside MPI call n" from the constructor to
// done() (collector/mpi_bridge.h). Used by every wrapper of mpi/.
#pragma once

#include <cstdint>

#include "collector/mpi_bridge.h"
#include "proto/mpi_calls.h"

namespace omprof::mpi {

class MeasuredCall {
 public:
  // `call_site`: the wrapper's return address, in the program's code.
  MeasuredCall(format::MpiCall call, void* call_site) {
    omprof_internal_mpi_enter(&c_, call, reinterpret_cast<uint64_t>(call_site));
  }
  void done() { omprof_internal_mpi_leave(&c_); }

 private:
  omprof_mpi_call c_{};
};

}  // namespace omprof::mpi
