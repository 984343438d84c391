// This rank's numbers for the in-job MPI summary (ranks/rank_numbers.h), read from the
// collector's memory while the program runs (MPI_Finalize): the same attribution the viewer
// makes from the profile written at exit. Ordinary context; other threads may still be
// sampled meanwhile (their newest samples may be missed, never misread).
#pragma once

#include <cstdint>

#include "ranks/rank_numbers.h"

namespace omprof::writer {

// `duration_ns`: the snapshot's moment in ns since the run start, the end of the POP window
// (threads still running and waits still open count up to it).
ranks::RankNumbers rank_snapshot(int rank, uint64_t duration_ns);

}  // namespace omprof::writer
