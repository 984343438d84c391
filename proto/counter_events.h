// The counter events `omprof run --counters LIST` accepts (docs/usage.md, "Counters"): the
// kernel's software events, counted per thread with perf_event_open, and PAPI's events by name.
// Shared by the launcher (which checks the list before the program starts), the collector (which
// opens the kernel events on each thread) and the viewer (names and units). Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace omprof::counters {

// Events counted at once per thread: one perf_event group read with one system call per sample.
constexpr size_t kMaxCounters = 4;

enum class Source { kKernel, kPapi };

struct KernelEvent {
  const char* name;      // as `perf list` names it
  uint32_t perf_config;  // PERF_TYPE_SOFTWARE's config (linux/perf_event.h)
  const char* unit;      // "faults", "switches", "ns"
  const char* what;      // one line for docs and errors
};
// page-faults, minor-faults, major-faults, context-switches, cpu-migrations, task-clock.
const std::vector<KernelEvent>& kernel_events();

struct EventSpec {
  std::string name;
  Source source = Source::kKernel;
  uint32_t perf_config = 0;  // kernel events
  std::string unit;
  // "name:PERIOD": also sampled, every PERIOD events (0: counted only). At most one event is
  // sampled; it leads the group (parse_event_list puts it first).
  uint64_t sample_period = 0;
};

// Parses "page-faults:64,context-switches" (names of kernel_events(), aliases `faults`, `cs`,
// `migrations`; PAPI presets `PAPI_*` and native `component::event` names go to PAPI; ":N" after
// a kernel event samples it every N events). False with a one-line `error` for an empty list, an
// unknown or repeated name, more than kMaxCounters, a period that is not a whole number from 1 to
// 2^62, a sampled PAPI event, or more than one sampled event.
bool parse_event_list(const std::string& text, std::vector<EventSpec>& out, std::string& error);

// The events joined by commas, each "name" or "name:PERIOD" (what the launcher passes to the
// collector, which parses it again).
std::string join_names(const std::vector<EventSpec>& events);

}  // namespace omprof::counters
