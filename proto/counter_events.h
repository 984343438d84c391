// The counter events `omprof run --counters LIST` accepts (docs/usage.md, "Counters"): the
// kernel's software and generic hardware events by perf's names, libpfm4's native names
// ("pmu::event") and PAPI's presets. Every one is counted the same way, as a perf_event in the
// thread's group: the launcher turns native names and presets into perf_event encodings before
// the program starts (through libpfm4 and PAPI, in the viewer), and the collector opens what it
// is given. Shared by the launcher, the collector and the viewer. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace omprof::counters {

// Events counted at once per thread: one perf_event group read with one system call per sample.
constexpr size_t kMaxCounters = 4;

// kKernel: a name of kernel_events(); kNative: libpfm4's "pmu::event[:modifier...]"; kPapi: a
// PAPI preset ("PAPI_TOT_CYC") or a PAPI component's native event ("component:::event").
enum class Source { kKernel, kNative, kPapi };

// What perf_event_open needs to count an event (struct perf_event_attr's fields of that name).
struct PerfEncoding {
  uint32_t type = 0;
  uint64_t config = 0, config1 = 0, config2 = 0;
};

struct KernelEvent {
  const char* name;  // as `perf list` names it
  PerfEncoding perf;
  const char* unit;  // "faults", "switches", "ns", "cycles"
  const char* what;  // one line for docs and errors
};
// Software: page-faults, minor-faults, major-faults, context-switches, cpu-migrations,
// task-clock. Hardware (a CPU PMU): cycles, instructions, ref-cycles, cache-references,
// cache-misses, branches, branch-misses.
const std::vector<KernelEvent>& kernel_events();

struct EventSpec {
  std::string name;
  Source source = Source::kKernel;
  // Kernel events from the table; the others once the launcher has encoded them.
  PerfEncoding perf;
  bool encoded = false;
  std::string unit;
  // "name:PERIOD": also sampled, every PERIOD events (0: counted only). At most one event is
  // sampled; it leads the group (parse_event_list puts it first).
  uint64_t sample_period = 0;
};

// Whether the event needs a CPU's performance monitoring unit (not a kernel software event).
bool is_hardware(const PerfEncoding& perf);

// What an event counts, for the metrics derived from several (by the names perf, libpfm4's perf
// PMU and PAPI's presets give the same quantity): cycles, instructions, misses of some cache,
// TLB or branch predictor, or something else.
enum class Quantity { kOther, kCycles, kInstructions, kMisses };
Quantity quantity_of(const std::string& name);

// A metric derived from counted events: IPC (instructions per cycle) where both are counted,
// and each miss event per 1000 instructions (MPKI) where instructions are counted.
struct DerivedMetric {
  std::string name;                       // "IPC", "cache-misses per 1000 instructions"
  size_t numerator = 0, denominator = 0;  // indices into the events
  double scale = 1;                       // 1000 for per-kilo-instruction
};
std::vector<DerivedMetric> derived_metrics(const std::vector<std::string>& events);

// Parses "page-faults:64,context-switches" (names of kernel_events(), aliases `faults`, `cs`,
// `migrations`, `cpu-cycles`, `branch-instructions`; `PAPI_*` presets and `component:::event`
// names; libpfm4's `pmu::event[:modifiers]`; ":N" after a name, all digits, samples it every N
// events). False with a one-line `error` for an empty list, an unknown or repeated name, more
// than kMaxCounters, a period that is not a whole number from 1 to 2^62, or more than one
// sampled event.
bool parse_event_list(const std::string& text, std::vector<EventSpec>& out, std::string& error);

// The events joined by commas, each "name" or "name:PERIOD" (what the launcher passes to the
// collector, which parses it again).
std::string join_names(const std::vector<EventSpec>& events);

// The events' encodings in list order, "type/config/config1/config2" joined by commas (hex
// numbers), and back onto a parsed list (the collector's second variable beside the names).
std::string join_encodings(const std::vector<EventSpec>& events);
bool apply_encodings(const std::string& text, std::vector<EventSpec>& events, std::string& error);

}  // namespace omprof::counters
