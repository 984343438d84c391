// `omprof run --counters LIST`: checks, before the program starts, that every event can be
// counted here (proto/counter_events.h). An event that cannot is one line naming it and why,
// and a non-zero exit: never a run whose counts read zero.
#pragma once

#include <string>

#include "launcher/launcher.h"

namespace omprof::launcher {

// `--clock event:NAME:PERIOD`: samples the event every PERIOD events as `--counters NAME:PERIOD`
// does (joined to the --counters list; time sampling goes on with the default clock, since work
// and wait need time). False with one line when PERIOD is missing.
bool sample_event_as_counter(RunOptions& run);

// Returns 0 and sets `names` and `encodings` (what the collector gets in OMPROF_COUNTERS and
// OMPROF_COUNTER_ENCODING), or prints one line and returns 2. libpfm4 names and PAPI presets are
// encoded by the viewer's hidden `probe-counters` command (the launcher links neither library);
// then the whole group is opened here as the collector will open it on each thread, and a group
// of hardware events is run once to see that the CPU's counters hold it.
int check_counters(const std::string& list, std::string& names, std::string& encodings);

}  // namespace omprof::launcher
