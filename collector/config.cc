#include "collector/config.h"

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace omprof {

namespace {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

// Sets `out` from the option's variable if it is set; false with `error` if it is invalid.
bool read_number(const options::Number& opt, uint32_t& out, std::string& error) {
  const char* v = get(opt.env);
  if (!v) return true;
  uint64_t n = 0;
  if (!options::parse_number(opt, v, n, error)) return false;
  out = uint32_t(n);
  return true;
}

// The clock, and why it is this one: the launcher says why it chose it; a process preloaded
// without `omprof run` says what it was given.
bool read_clock(ClockKind& clock, std::string& choice, std::string& error) {
  const char* v = get(options::kClockEnv);
  const char* why = get(options::env::kClockChoice);
  if (!v) {
    choice = std::string(options::kClockEnv) + " unset: the collector's default, the cpu clock";
    return true;
  }
  choice = why && *why ? why : std::string(options::kClockEnv) + "=" + v;
  static const ClockKind kinds[] = {ClockKind::kCpu, ClockKind::kWall, ClockKind::kTask};
  for (size_t i = 0; i < 3; ++i)
    if (!std::strcmp(v, options::kClockChoices[i])) {
      clock = kinds[i];
      return true;
    }
  error = std::string(options::kClockEnv) + " must be 'cpu', 'wall' or 'task', got '" + v + "'";
  return false;
}

bool read_signal(int& signo, std::string& error) {
  const char* v = get(options::kSignalEnv);
  if (!v) return true;
  const int s = options::parse_signal(v);
  if (!options::usable_profiling_signal(s)) {
    error = std::string(options::kSignalEnv) + " is not a usable signal: '" + v + "'";
    return false;
  }
  signo = s;
  return true;
}

// The kernel checked the TSC (invariant, synchronized across CPUs) before it chose it as its
// clocksource; a TSC it does not use may drift between CPUs.
bool kernel_keeps_time_with_tsc() {
  return kernel_clocksource() == "tsc";
}

}  // namespace

std::string kernel_clocksource() {
  const int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                      O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char source[32] = {};
  const ssize_t n = read(fd, source, sizeof source - 1);
  close(fd);
  std::string name(source, n > 0 ? size_t(n) : 0);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

// OMPROF_COUNTERS: the events the launcher checked, and OMPROF_COUNTER_ENCODING their
// perf_event encodings (it translates libpfm4 names and PAPI presets before the program starts).
static bool read_counters(Config& cfg, std::string& error) {
  const char* v = get(options::env::kCounters);
  if (!v || !*v) return true;
  if (!counters::parse_event_list(v, cfg.counter_events, error)) return false;
  if (const char* enc = get(options::env::kCounterEncoding); enc && *enc)
    return counters::apply_encodings(enc, cfg.counter_events, error);
  for (const counters::EventSpec& e : cfg.counter_events)
    if (!e.encoded) {
      error = std::string(options::env::kCounters) + ": " + e.name + " needs " +
              options::env::kCounterEncoding + " (omprof run translates it)";
      return false;
    }
  return true;
}

bool parse_config(Config& cfg, std::string& error) {
  if (!read_number(options::kRate, cfg.rate_hz, error) ||
      !read_clock(cfg.clock, cfg.clock_choice, error) || !read_signal(cfg.signo, error) ||
      !read_number(options::kMaxDepth, cfg.max_depth, error) ||
      !read_number(options::kMaxContexts, cfg.max_contexts, error) ||
      !read_number(options::kMaxThreads, cfg.max_threads, error))
    return false;
  uint32_t interval_ms = uint32_t(options::kInterval.default_value);
  if (!read_number(options::kInterval, interval_ms, error)) return false;
  cfg.interval_ns = uint64_t(interval_ms) * 1000000;
  uint32_t event_min_ms = uint32_t(options::kEventMin.default_value);
  if (!read_number(options::kEventMin, event_min_ms, error)) return false;
  cfg.event_min_ns = uint64_t(event_min_ms) * 1000000;
  cfg.period_ns = 1000000000ULL / cfg.rate_hz;
  uint32_t pow2 = 16;
  while (pow2 < cfg.max_contexts) pow2 <<= 1;
  cfg.max_contexts = pow2;
  cfg.frame_pool = cfg.max_contexts * 32;
  if (const char* v = get(options::env::kOutput)) cfg.output_dir = v;
  // Absolute from the start: a program that chdir()s must not make the profile go elsewhere than
  // its journal (or fail to be written, with the journal left behind).
  char cwd[PATH_MAX];
  if (cfg.output_dir.empty() || cfg.output_dir[0] != '/') {
    if (getcwd(cwd, sizeof cwd))
      cfg.output_dir = std::string(cwd) + (cfg.output_dir.empty() ? "" : "/" + cfg.output_dir);
  }
  if (const char* v = get(options::env::kManifest)) cfg.manifest = v;
  if (const char* v = get(options::env::kMpiCpu)) cfg.mpi_cpu = std::strcmp(v, "1") == 0;
  const char* tsc = get(options::env::kTsc);
  cfg.wall_clock_tsc = tsc ? std::strcmp(tsc, "1") == 0 : kernel_keeps_time_with_tsc();
  if (const char* v = get(options::env::kClockFallback)) {
    char* end = nullptr;
    const unsigned long long rate = std::strtoull(v, &end, 10);
    if (end == v || *end != 0) {
      error = std::string(options::env::kClockFallback) +
              " must be a number of context switches per CPU-second, got '" + v + "'";
      return false;
    }
    cfg.clock_fallback_per_cpu_s = rate;
  }
  return read_counters(cfg, error);
}

}  // namespace omprof
