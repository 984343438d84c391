// Reads the in-job MPI summary (`.ompsum`, docs/format.md) back into the summary it was made
// from, validating magic, framing and version; throws format::ProfileError with one line.
#pragma once

#include <string>

#include "ranks/job_summary.h"

namespace omprof::viewer {

bool is_summary_path(const std::string& path);
ranks::JobSummary read_summary_file(const std::string& path);

}  // namespace omprof::viewer
