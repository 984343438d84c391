// The in-job summary's protobuf file (`.ompsum`, proto/omprof.proto JobSummary, docs/format.md),
// encoded by hand like the profile (proto/wire.h: no libprotobuf inside the program).
#pragma once

#include <cstdint>
#include <string>

#include "ranks/job_summary.h"

namespace omprof::ranks {

std::string encode_summary_file(const JobSummary& s, const std::string& program,
                                uint64_t reduction_ns);

}  // namespace omprof::ranks
