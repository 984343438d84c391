// Whether the collector's wall clock kept time over the run (docs/semantics.md, "Clocks"). The
// TSC clock is calibrated once, at start-up (collector/handler/wall_clock.h); at shutdown the
// writer compares it with CLOCK_MONOTONIC again and checks that the kernel still keeps time
// with the TSC. What it finds goes into the profile's header, and a warning to the user when
// exact times may be off.
#pragma once

#include <cstdint>
#include <string>

namespace omprof {

// A rate error up to this share of the run (1,000 ppm) is accepted: NTP slews CLOCK_MONOTONIC
// by at most 500 ppm, which the TSC clock does not follow, and the calibration's own error is a
// few ppm. kDriftFloorNs covers the pair reads' window.
constexpr double kDriftShareAccepted = 1e-3;
constexpr int64_t kDriftFloorNs = 50000;

struct WallClockCheck {
  bool checked = false;  // false: not known yet (the journal's header, written at start-up)
  bool tsc = false;      // the clock read the TSC (after its calibration)
  int64_t drift_ns = 0;  // TSC clock minus CLOCK_MONOTONIC at the end (0 without the TSC)
  std::string note;      // why exact times may be off; empty when they are not
};

// The note for these facts: `clocksource_now` is the kernel's clocksource at the end.
std::string wall_clock_note(bool tsc, int64_t drift_ns, uint64_t duration_ns,
                            const std::string& clocksource_now);

// Reads the clocks and the kernel's clocksource. Ordinary context, at shutdown.
WallClockCheck check_wall_clock(uint64_t duration_ns);

}  // namespace omprof
