// What the signal handler asks of the OpenMP side: the sampled thread's OMPT state and the
// parallel region it is in. Async-signal-safe; fills "not an OpenMP thread" without OMPT.
#pragma once

#include "collector/sample_table.h"

namespace omprof::omp {

// omprof's own state numbers, beside OMPT's (see proto/omprof.proto).
constexpr uint32_t kStateNotOpenMP = 0x1000;
constexpr uint32_t kStateIdleDerived = 0x1001;
// work_parallel inside a taskwait/taskgroup wait; resolved offline (omp/user_model.h).
constexpr uint32_t kStateInTaskwait = 0x1002;

void read_sample_context(SampleContext& ctx);

}  // namespace omprof::omp
