// What perf_event_open needs to count an event omprof knows only by name: libpfm4's native
// names ("perf::PAGE-FAULTS", "skl::INST_RETIRED:ANY_P") and PAPI's presets, which PAPI defines
// as native events of its perf_event component. Run by the launcher through the viewer's hidden
// `probe-counters` command before the program starts (the launcher links neither library).
#pragma once

#include <string>

#include "proto/counter_events.h"

namespace omprof::viewer {

// True and the encoding, or false and why not in one phrase ("libpfm4 knows no event X", "PAPI
// has no active component here (perf_event: ...)", "PAPI_FP_OPS is derived from 2 native events
// (a, b): name them instead").
bool encode_counter_event(const std::string& name, counters::PerfEncoding& out, std::string& why);

}  // namespace omprof::viewer
