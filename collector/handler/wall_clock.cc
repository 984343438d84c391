#include "collector/handler/wall_clock.h"

#include <atomic>
#include <ctime>

namespace omprof::handler::wall_clock {

TscScale g_scale;
HotFlag g_tsc_ready;

namespace {

// 0: the TSC is not used; 1: calibrating from g_start; 2: a thread is finishing the
// calibration; 3: done (g_tsc_ready).
std::atomic<int> g_state{0};
TscScale g_start;  // the first pair (tsc0, ns0)

uint64_t clock_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ULL + uint64_t(t.tv_nsec);
}

// A (TSC, CLOCK_MONOTONIC) pair read as close together as the machine allows: the tightest of
// a few tries bounds the pair's error by its window.
void read_pair(uint64_t* tsc, uint64_t* ns) {
  uint64_t best_window = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = __builtin_ia32_rdtsc();
    const uint64_t n = clock_ns();
    const uint64_t after = __builtin_ia32_rdtsc();
    if (after - before < best_window) {
      best_window = after - before;
      *tsc = before + (after - before) / 2;
      *ns = n;
    }
  }
}

// The calling thread moved g_state from 1 to 2: it fixes the rate and publishes the scale.
void finish_calibration() {
  uint64_t tsc = 0, ns = 0;
  read_pair(&tsc, &ns);
  const TscScale s = scale_between(g_start.tsc0, g_start.ns0, tsc, ns);
  if (s.mult == 0) {  // a TSC that does not advance: stay on the vDSO
    g_state.store(0, std::memory_order_relaxed);
    return;
  }
  g_scale = s;
  g_tsc_ready.set();
  g_state.store(3, std::memory_order_release);
}

}  // namespace

TscScale scale_between(uint64_t tsc_start, uint64_t ns_start, uint64_t tsc_end, uint64_t ns_end) {
  TscScale s;
  if (tsc_end <= tsc_start || ns_end <= ns_start) return s;
  const unsigned __int128 scaled = (unsigned __int128)(ns_end - ns_start) << 32;
  const unsigned __int128 mult = scaled / (tsc_end - tsc_start);
  if (mult == 0 || mult > UINT64_MAX) return s;
  s.tsc0 = tsc_end;
  s.ns0 = ns_end;
  s.mult = uint64_t(mult);
  return s;
}

void start(bool use_tsc) {
  if (!use_tsc) return;
  read_pair(&g_start.tsc0, &g_start.ns0);
  g_state.store(1, std::memory_order_release);
}

bool reads_tsc() {
  return g_tsc_ready.acquire();
}

int64_t tsc_drift_ns() {
  if (!reads_tsc()) return 0;
  uint64_t tsc = 0, ns = 0;
  read_pair(&tsc, &ns);
  return drift_between(g_scale, tsc, ns);
}

uint64_t vdso_ns() {
  const uint64_t now = clock_ns();
  if (g_state.load(std::memory_order_acquire) == 1 && now - g_start.ns0 >= kCalibrationNs) {
    int calibrating = 1;
    if (g_state.compare_exchange_strong(calibrating, 2, std::memory_order_acq_rel))
      finish_calibration();
  }
  return now;
}

}  // namespace omprof::handler::wall_clock
