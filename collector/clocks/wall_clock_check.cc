#include "collector/clocks/wall_clock_check.h"

#include <cstdio>
#include <cstdlib>

#include "collector/config.h"
#include "collector/handler/wall_clock.h"

namespace omprof {

std::string wall_clock_note(bool tsc, int64_t drift_ns, uint64_t duration_ns,
                            const std::string& clocksource_now) {
  if (!tsc) return "";
  const char* advice = "; OMPROF_TSC=0 times them with CLOCK_MONOTONIC";
  if (!clocksource_now.empty() && clocksource_now != "tsc")
    return "the kernel's clocksource is " + clocksource_now +
           " at the end of the run, not the TSC that omprof's exact times were read from: they "
           "may be wrong" +
           advice;
  const double limit = kDriftShareAccepted * double(duration_ns) + double(kDriftFloorNs);
  if (double(std::llabs(drift_ns)) <= limit) return "";
  char text[256];
  std::snprintf(text, sizeof text,
                "the TSC ran %.3f ms %s CLOCK_MONOTONIC over the %.3f s run (%.0f ppm): exact "
                "wait, fork and region times may be off by that share",
                double(std::llabs(drift_ns)) * 1e-6, drift_ns > 0 ? "ahead of" : "behind",
                double(duration_ns) * 1e-9,
                duration_ns ? 1e6 * double(std::llabs(drift_ns)) / double(duration_ns) : 0.0);
  return text + std::string(advice);
}

WallClockCheck check_wall_clock(uint64_t duration_ns) {
  WallClockCheck c;
  c.checked = true;
  c.tsc = handler::wall_clock::reads_tsc();
  if (!c.tsc) return c;
  c.drift_ns = handler::wall_clock::tsc_drift_ns();
  c.note = wall_clock_note(c.tsc, c.drift_ns, duration_ns, kernel_clocksource());
  return c;
}

}  // namespace omprof
