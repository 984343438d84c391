#include "viewer/papi_probe.h"

#include <papi.h>

namespace omprof::viewer {

namespace {

// The library, started once; "" or why it could not start.
const std::string& papi_started() {
  static const std::string error = [] {
    const int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v == PAPI_VER_CURRENT) return std::string();
    if (v > 0) return std::string("the PAPI library's version differs from omprof's headers");
    return std::string("PAPI could not start: ") + PAPI_strerror(v);
  }();
  return error;
}

// Components that can count something; otherwise why the perf_event one cannot.
std::string no_active_component() {
  std::string perf_event_reason;
  for (int i = 0; i < PAPI_num_components(); ++i) {
    const PAPI_component_info_t* c = PAPI_get_component_info(i);
    if (!c) continue;
    if (!c->disabled && c->num_cntrs > 0) return "";
    if (std::string(c->name) == "perf_event") perf_event_reason = c->disabled_reason;
  }
  return "PAPI has no active component here" +
         (perf_event_reason.empty() ? std::string() : " (perf_event: " + perf_event_reason + ")");
}

}  // namespace

std::string papi_cannot_count(const std::string& name) {
  if (const std::string& e = papi_started(); !e.empty()) return e;
  if (const std::string e = no_active_component(); !e.empty()) return e;
  int code = 0;
  if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK) return "PAPI knows no event " + name;
  if (PAPI_query_event(code) != PAPI_OK) return name + " is not available on this machine";
  // PAPI could count it; omprof's collector does not read PAPI events yet (kernel events only).
  return "this omprof counts kernel events only (PAPI events are checked, not yet counted)";
}

}  // namespace omprof::viewer
