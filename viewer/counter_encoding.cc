#include "viewer/counter_encoding.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstring>

#include "viewer/papi_probe.h"

namespace omprof::viewer {

namespace {

bool pfm_started(std::string& why) {
  static const int status = pfm_initialize();
  if (status == PFM_SUCCESS) return true;
  why = std::string("libpfm4 could not start: ") + pfm_strerror(status);
  return false;
}

// libpfm4's encoding of a native name, user and kernel mode (as omprof's kernel events count).
bool encode_native(const std::string& name, counters::PerfEncoding& out, std::string& why) {
  if (!pfm_started(why)) return false;
  perf_event_attr attr{};
  pfm_perf_encode_arg_t arg{};
  arg.attr = &attr;
  arg.size = sizeof arg;
  const int status =
      pfm_get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
  if (status != PFM_SUCCESS) {
    why = status == PFM_ERR_NOTFOUND
              ? "libpfm4 knows no event " + name
              : "libpfm4 cannot encode " + name + ": " + pfm_strerror(status);
    return false;
  }
  if (attr.exclude_user || attr.exclude_kernel) {
    why = "omprof counts user and kernel mode together; drop the privilege-level modifier";
    return false;
  }
  out = {attr.type, attr.config, attr.config1, attr.config2};
  return true;
}

}  // namespace

bool encode_counter_event(const std::string& name, counters::PerfEncoding& out, std::string& why) {
  const bool papi = name.rfind("PAPI_", 0) == 0 || name.find(":::") != std::string::npos;
  if (!papi) return encode_native(name, out, why);
  std::string native;
  if (!papi_native_event(name, native, why)) return false;
  return encode_native(native, out, why);
}

}  // namespace omprof::viewer
