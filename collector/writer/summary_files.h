// Rank 0's files of the in-job MPI summary, next to the rank profiles in the output directory:
// `<program>.<pid>.summary.txt` (text), `.csv` (the regions CSV of docs/format.md) and `.ompsum`
// (protobuf). When the summary cannot be made, the text file says why. Ordinary context.
#pragma once

#include <cstdint>
#include <string>

#include "ranks/job_summary.h"

namespace omprof::writer {

// What the reduction cost rank 0.
struct ReductionCost {
  uint64_t total_ns = 0, snapshot_ns = 0;  // all of it; this rank's own numbers
  uint64_t messages = 0, bytes = 0;        // received in the trees (not counting MPI_Reduce)
};
void write_summary_files(const ranks::JobSummary& s, const ReductionCost& cost);
void write_summary_missing(const std::string& why);

}  // namespace omprof::writer
