// Counter events across a scaling series (`omprof scaling` of runs made with --counters): each
// event's total per run and its growth against the reference, per core for weak scaling (POP's
// instruction scaling when the event counts instructions), and the derived metrics (IPC) per run
// with their ratio to the reference (IPC scaling).
#pragma once

#include <vector>

#include "viewer/scaling.h"
#include "viewer/table.h"

namespace omprof::viewer {

// The events every run counted, by name, in the reference's order (empty: the table is left out).
std::vector<std::string> series_events(const ScalingAnalysis& a);

// Rows: each event's total; "EVENT scaling" (the reference's total over this run's, per core
// under weak scaling: below 1 when the run needs more of it, as POP's instruction scaling reads
// for instructions); each derived metric (IPC, misses per 1000 instructions); "METRIC vs
// reference" (this run's over the reference's: IPC scaling). A column per run.
Table counters_table(const ScalingAnalysis& a);

}  // namespace omprof::viewer
