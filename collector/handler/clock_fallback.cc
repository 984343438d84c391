#include "collector/handler/clock_fallback.h"

#include <sys/resource.h>

#include "collector/handler/sampling_clock.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/thread_state.h"

namespace omprof::handler {

namespace {
ClockFallback g_fallback;  // constant-initialized: no guard in the handler

// Enough CPU time for the rate to mean something: 16 samples at the default 200 Hz.
constexpr uint32_t kCheckEverySamples = 16;
constexpr uint64_t kMinWindowCpuNs = 50000000;

// handler: getrusage is a plain system call.
uint64_t own_switches() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return uint64_t(u.ru_nvcsw) + uint64_t(u.ru_nivcsw);
}
}  // namespace

ClockFallback& clock_fallback() {
  return g_fallback;
}

bool leave_clock_if_switching(ThreadState* ts, uint64_t cpu_now_ns, uint64_t next_ns) {
  const ClockFallback& f = g_fallback;
  if (f.switches_per_cpu_s == 0 || ts->clock != f.from || !f.to) return false;
  if (++ts->samples_since_switch_check < kCheckEverySamples) return false;
  const uint64_t switches = own_switches();
  if (ts->switch_check_cpu_ns == 0 || cpu_now_ns < ts->switch_check_cpu_ns + kMinWindowCpuNs) {
    if (ts->switch_check_cpu_ns == 0) {
      ts->switch_check_cpu_ns = cpu_now_ns;
      ts->switch_check_switches = switches;
    }
    ts->samples_since_switch_check = 0;
    return false;
  }
  const uint64_t cpu_ns = cpu_now_ns - ts->switch_check_cpu_ns;
  const uint64_t made = switches - ts->switch_check_switches;
  ts->switch_check_cpu_ns = cpu_now_ns;
  ts->switch_check_switches = switches;
  ts->samples_since_switch_check = 0;
  // made / cpu_s > limit, without floating point.
  if (made * 1000000000ULL <= f.switches_per_cpu_s * cpu_ns) return false;
  const SamplingClock* from = ts->clock;
  if (!f.to->arm(ts, sampling_state().signo, next_ns)) return false;  // keep the task clock
  from->disarm(ts);
  ts->perf_fd = -1;
  ts->clock = f.to;
  ts->cpu_clock_from_ns = cpu_now_ns;
  ts->switches_per_cpu_s_at_move = made * 1000000000ULL / (cpu_ns ? cpu_ns : 1);
  return true;
}

}  // namespace omprof::handler
