// `omprof report` of several MPI ranks' profiles: the job's header (the cross-rank summary and
// the master, idle and machine facts summed over ranks), the ranks table, the region summary
// and the sample views merged over ranks. Each profile is reduced as it is read: memory grows
// with ranks x region paths and the merged views, not with ranks x samples.
#pragma once

#include <string>
#include <vector>

#include "ranks/job_summary.h"
#include "viewer/report.h"
#include "viewer/report_output.h"
#include "viewer/symbolize.h"

namespace omprof::viewer {

// `show_ranks`: the ranks table even when --regions is asked for. Returns the exit status:
// `status`, or 1 when a file could not be read or is not a rank's profile.
int report_job(const std::vector<std::string>& files, const ReportOptions& options, bool show_ranks,
               SymbolCache& symbols, ReportOutput& out, int status);

// A job's regions over ranks (the `.ompsum` summary, or the one made from rank profiles) as
// the section `key` of CSV or JSON output: the columns of the job's .summary.csv.
void region_summary_section(ReportOutput& out, const ranks::JobSummary& job, const char* key);

// Whether the files are several MPI ranks' profiles (the first one says).
bool several_ranks(const std::vector<std::string>& files, SymbolCache& symbols);

}  // namespace omprof::viewer
