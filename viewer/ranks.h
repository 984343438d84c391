// Profiles of several MPI ranks read together (`omprof report DIR`): each rank's profile is
// reduced to its numbers as it is read (ranks/rank_numbers.h: memory grows with ranks x
// region paths, never with samples), then summarized over ranks exactly as the job's own
// summary at MPI_Finalize is (ranks/job_summary.h).
#pragma once

#include <vector>

#include "proto/profile_reader.h"
#include "ranks/job_summary.h"
#include "viewer/table.h"

namespace omprof::viewer {

using ranks::JobSummary;
using ranks::RankNumbers;
using ranks::RankRegion;

// A rank's POP window (ranks::pop_window) from its profile's header, empty while the rank is
// still inside MPI_Init (a live or killed rank whose call in progress is MPI_Init[_thread]): its
// window has not begun, and its time so far is setup, not capacity left unused.
ranks::PopWindow pop_window_of(const format::Profile& p);

// One rank's numbers, attributed as the model attributes them (viewer/model.cc).
RankNumbers rank_numbers(const format::Profile& p);

// Per rank: threads, samples, elapsed, computation, work, OpenMP wait, MPI wait.
Table ranks_table(const std::vector<RankNumbers>& ranks);

}  // namespace omprof::viewer
