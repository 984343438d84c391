#include "viewer/papi_probe.h"

#include <papi.h>

#include <cstring>

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

// PAPI's description of an event it can count, or why not.
bool papi_event_info(const std::string& name, PAPI_event_info_t& info, std::string& why) {
  if (const std::string& e = papi_started(); !e.empty()) return why = e, false;
  if (const std::string e = no_active_component(); !e.empty()) return why = e, false;
  int code = 0;
  if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK)
    return why = "PAPI knows no event " + name, false;
  if (PAPI_query_event(code) != PAPI_OK || PAPI_get_event_info(code, &info) != PAPI_OK)
    return why = name + " is not available on this machine", false;
  return true;
}

}  // namespace

bool papi_native_event(const std::string& name, std::string& native, std::string& why) {
  PAPI_event_info_t info{};
  if (!papi_event_info(name, info, why)) return false;
  const bool preset = (unsigned(info.event_code) & PAPI_PRESET_MASK) != 0;
  const unsigned terms = preset ? info.count : 1;
  const bool derived = preset && info.derived[0] && std::strcmp(info.derived, "NOT_DERIVED") != 0;
  if (terms != 1 || derived) {
    std::string list;
    for (unsigned i = 0; i < terms && i < PAPI_MAX_INFO_TERMS; ++i)
      list += (list.empty() ? "" : ", ") + std::string(info.name[i]);
    why = name + " is derived from " + std::to_string(terms) + " native events (" + list +
          "): name them instead";
    return false;
  }
  const int component = PAPI_get_event_component(info.event_code);
  const PAPI_component_info_t* c = PAPI_get_component_info(component);
  if (!c || std::string(c->name) != "perf_event") {
    why = name + " belongs to PAPI's " + (c ? c->name : "unknown") +
          " component; omprof counts perf_event events only";
    return false;
  }
  native = preset ? info.name[0] : info.symbol;
  return true;
}

}  // namespace omprof::viewer
