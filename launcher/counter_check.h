// `omprof run --counters LIST`: checks, before the program starts, that every event can be
// counted here (proto/counter_events.h). An event that cannot is one line naming it and why,
// and a non-zero exit: never a run whose counts read zero.
#pragma once

#include <string>

namespace omprof::launcher {

// Returns 0 and sets `names` (what the collector gets in OMPROF_COUNTERS), or prints one line
// and returns 2.
int check_counters(const std::string& list, std::string& names);

}  // namespace omprof::launcher
