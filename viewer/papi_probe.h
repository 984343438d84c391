// Whether PAPI can count an event on this machine (`omprof run --counters PAPI_...`): the
// launcher asks through the viewer's hidden `probe-counters` command, which links PAPI (the
// launcher is static and links nothing it does not need on every run).
#pragma once

#include <string>

namespace omprof::viewer {

// "" when PAPI can count `name` here, else why not, in one phrase ("PAPI has no active
// component here (perf_event: Error libpfm4 no default PMU found)", "PAPI knows no event
// PAPI_BOGUS", ...).
std::string papi_cannot_count(const std::string& name);

}  // namespace omprof::viewer
