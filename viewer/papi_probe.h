// Whether PAPI can count an event on this machine (`omprof run --counters PAPI_...`): the
// launcher asks through the viewer's hidden `probe-counters` command, which links PAPI (the
// launcher is static and links nothing it does not need on every run).
#pragma once

#include <string>

namespace omprof::viewer {

// The libpfm4 name of the one native event of PAPI's perf_event component that PAPI counts for
// `name` (a preset, or a component's native event), or false and why not in one phrase ("PAPI
// has no active component here (perf_event: Error libpfm4 no default PMU found)", "PAPI knows no
// event PAPI_BOGUS", "PAPI_FP_OPS is derived from 2 native events (a, b): name them instead").
bool papi_native_event(const std::string& name, std::string& native, std::string& why);

}  // namespace omprof::viewer
