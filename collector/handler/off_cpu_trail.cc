#include "collector/handler/off_cpu_trail.h"

namespace omprof::handler {

namespace {

// The CPU time a gap's `unmeasured_ns` of wall outside the measured time hid: all the clock
// read, unless the measured time is wall known while it runs (the rest ran inside it); a sample
// inside a measured wait whose time is known only at its end subtracts none (the wait will).
int64_t cpu_outside_measured(int64_t unmeasured_ns, uint64_t cpu_ns, SampleTime time,
                             MeasuredKnown known) {
  if (known == MeasuredKnown::kWhileItRuns) {
    if (unmeasured_ns <= 0) return 0;
    return int64_t(cpu_ns) < unmeasured_ns ? int64_t(cpu_ns) : unmeasured_ns;
  }
  return time == SampleTime::kRepeatsMeasured ? 0 : int64_t(cpu_ns);
}

}  // namespace

OffCpuSeen off_cpu_seen(OffCpuTrail& trail, const SampleGap& gap) {
  int64_t unmeasured = 0;
  if (gap.now_mono_ns > trail.mono_ns) unmeasured += int64_t(gap.now_mono_ns - trail.mono_ns);
  if (gap.measured_ns > trail.measured_ns)
    unmeasured -= int64_t(gap.measured_ns - trail.measured_ns);
  int64_t seen = trail.carry_ns + unmeasured -
                 cpu_outside_measured(unmeasured, gap.cpu_ns, gap.time, gap.known);
  trail.mono_ns = gap.now_mono_ns > trail.mono_ns ? gap.now_mono_ns : trail.mono_ns;
  trail.measured_ns = gap.measured_ns > trail.measured_ns ? gap.measured_ns : trail.measured_ns;
  OffCpuSeen out;
  if (gap.time != SampleTime::kTakesOffCpu && seen > 0 &&
      gap.known == MeasuredKnown::kWhileItRuns && trail.previous_slot != kNoSeenSlot &&
      trail.previous_region == gap.region) {
    trail.carry_ns = 0;
    out.previous_ns = uint64_t(seen);
    return out;
  }
  if (gap.time != SampleTime::kTakesOffCpu || seen <= 0) {
    trail.carry_ns = seen;
    return out;
  }
  trail.carry_ns = 0;
  out.previous_ns = trail.previous_slot == kNoSeenSlot ? 0 : uint64_t(seen) / 2;
  out.this_ns = uint64_t(seen) - out.previous_ns;
  return out;
}

}  // namespace omprof::handler
