// The collector's wall clock: CLOCK_MONOTONIC nanoseconds, read where the profiled program's
// hot paths pay for it (OMPT callbacks at every fork, join and barrier; explicit region begin
// and end; MPI calls). Async-signal-safe: plain loads, atomics, rdtsc and clock_gettime.
//
// A vDSO read of CLOCK_MONOTONIC costs 20 to 30 ns (an ordered TSC read, the seqlock, the
// conversion); an empty parallel region costs about 400 ns on 2 threads, and timing its waits
// exactly takes several reads (docs/performance.md). When the kernel's own clocksource is the
// TSC (the kernel then checked that it is invariant and synchronized across CPUs), the clock
// reads the TSC directly (rdtsc, unordered) and converts it with a rate calibrated against
// CLOCK_MONOTONIC over the first kCalibrationNs of the run. Until then, and on any other
// clocksource, it is a vDSO read. The hand-over is seamless: the TSC scale is anchored at a
// CLOCK_MONOTONIC reading taken at the moment of the switch, and the rate's error (about 2
// parts per million after 20 ms) is the only drift after it.
#pragma once

#include <cstdint>

#include "collector/handler/hot_flag.h"

namespace omprof::handler::wall_clock {

constexpr uint64_t kCalibrationNs = 20000000;  // 20 ms

// ns = ns0 + (tsc - tsc0) * mult / 2^32.
struct TscScale {
  uint64_t tsc0 = 0;
  uint64_t ns0 = 0;
  uint64_t mult = 0;  // 0: no scale
};

// The scale through (tsc_end, ns_end) at the rate measured from (tsc_start, ns_start); mult 0
// when the pairs give no rate (neither clock advanced).
TscScale scale_between(uint64_t tsc_start, uint64_t ns_start, uint64_t tsc_end, uint64_t ns_end);

// Ticks before the anchor (another CPU's TSC read a few cycles early) read as the anchor.
inline uint64_t to_ns(const TscScale& s, uint64_t tsc) {
  const uint64_t ticks = tsc - s.tsc0;
  if (int64_t(ticks) < 0) return s.ns0;
  return s.ns0 + uint64_t((unsigned __int128)ticks * s.mult >> 32);
}

// Ordinary context, once, before the process's other threads read the clock: with `use_tsc`
// (collector/config.h), the calibration's first pair; without, the clock stays on the vDSO.
void start(bool use_tsc);
// Whether the clock reads the TSC by now (for the profile and tests).
bool reads_tsc();

// How far the clock (the TSC, converted) has run from CLOCK_MONOTONIC since the switch, in ns
// (positive: ahead); 0 while it is not the TSC. Ordinary context, at shutdown: a rate that
// changed after the calibration (a TSC the kernel stopped trusting, a migrated VM) shows here.
int64_t tsc_drift_ns();
// The same from a (TSC, CLOCK_MONOTONIC) pair read together.
inline int64_t drift_between(const TscScale& s, uint64_t tsc, uint64_t ns) {
  return int64_t(to_ns(s, tsc) - ns);
}
// The slow path: a vDSO read, which also finishes the calibration once kCalibrationNs passed.
uint64_t vdso_ns();

extern TscScale g_scale;
extern HotFlag g_tsc_ready;  // g_scale is complete

// Inline everywhere: an out-of-line call cost the OMPT callbacks their share of the clock reads.
[[gnu::always_inline]] inline uint64_t now_ns() {
  if (g_tsc_ready.acquire()) return to_ns(g_scale, __builtin_ia32_rdtsc());
  return vdso_ns();
}

}  // namespace omprof::handler::wall_clock
