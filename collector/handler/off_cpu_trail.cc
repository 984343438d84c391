#include "collector/handler/off_cpu_trail.h"

namespace omprof::handler {

OffCpuSeen off_cpu_seen(OffCpuTrail& trail, uint64_t now_mono_ns, uint64_t measured_ns,
                        uint64_t cpu_ns, SampleTime time) {
  int64_t seen = trail.carry_ns;
  if (now_mono_ns > trail.mono_ns) seen += int64_t(now_mono_ns - trail.mono_ns);
  if (measured_ns > trail.measured_ns) seen -= int64_t(measured_ns - trail.measured_ns);
  if (time != SampleTime::kRepeatsMeasured) seen -= int64_t(cpu_ns);
  trail.mono_ns = now_mono_ns > trail.mono_ns ? now_mono_ns : trail.mono_ns;
  trail.measured_ns = measured_ns > trail.measured_ns ? measured_ns : trail.measured_ns;
  OffCpuSeen out;
  if (time != SampleTime::kTakesOffCpu || seen <= 0) {
    trail.carry_ns = seen;
    return out;
  }
  trail.carry_ns = 0;
  out.previous_ns = trail.previous_slot == kNoSeenSlot ? 0 : uint64_t(seen) / 2;
  out.this_ns = uint64_t(seen) - out.previous_ns;
  return out;
}

}  // namespace omprof::handler
