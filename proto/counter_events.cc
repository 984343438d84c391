#include "proto/counter_events.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace omprof::counters {

const std::vector<KernelEvent>& kernel_events() {
  constexpr uint32_t kSw = PERF_TYPE_SOFTWARE, kHw = PERF_TYPE_HARDWARE;
  static const std::vector<KernelEvent> events = {
      {"page-faults", {kSw, PERF_COUNT_SW_PAGE_FAULTS}, "faults", "page faults (minor and major)"},
      {"minor-faults",
       {kSw, PERF_COUNT_SW_PAGE_FAULTS_MIN},
       "faults",
       "page faults served without I/O (first touch, copy-on-write)"},
      {"major-faults",
       {kSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
       "faults",
       "page faults that read a file"},
      {"context-switches",
       {kSw, PERF_COUNT_SW_CONTEXT_SWITCHES},
       "switches",
       "times the thread left its CPU (blocking, yielding, preempted)"},
      {"cpu-migrations",
       {kSw, PERF_COUNT_SW_CPU_MIGRATIONS},
       "migrations",
       "times the thread moved to another CPU"},
      {"task-clock", {kSw, PERF_COUNT_SW_TASK_CLOCK}, "ns", "the thread's CPU time"},
      {"cycles", {kHw, PERF_COUNT_HW_CPU_CYCLES}, "cycles", "CPU cycles"},
      {"instructions", {kHw, PERF_COUNT_HW_INSTRUCTIONS}, "instructions", "instructions retired"},
      {"ref-cycles",
       {kHw, PERF_COUNT_HW_REF_CPU_CYCLES},
       "cycles",
       "reference cycles, at a constant rate whatever the CPU's frequency"},
      {"cache-references",
       {kHw, PERF_COUNT_HW_CACHE_REFERENCES},
       "references",
       "last-level cache accesses"},
      {"cache-misses", {kHw, PERF_COUNT_HW_CACHE_MISSES}, "misses", "last-level cache misses"},
      {"branches", {kHw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS}, "branches", "branches retired"},
      {"branch-misses", {kHw, PERF_COUNT_HW_BRANCH_MISSES}, "misses", "mispredicted branches"},
  };
  return events;
}

bool is_hardware(const PerfEncoding& perf) {
  return perf.type != PERF_TYPE_SOFTWARE;
}

Quantity quantity_of(const std::string& name) {
  static const char* const kCycles[] = {"cycles", "PAPI_TOT_CYC", "perf::CYCLES",
                                        "perf::CPU-CYCLES", "perf::PERF_COUNT_HW_CPU_CYCLES"};
  static const char* const kInstructions[] = {"instructions", "PAPI_TOT_INS", "perf::INSTRUCTIONS",
                                              "perf::PERF_COUNT_HW_INSTRUCTIONS"};
  for (const char* c : kCycles)
    if (name == c) return Quantity::kCycles;
  for (const char* i : kInstructions)
    if (name == i) return Quantity::kInstructions;
  // perf's "cache-misses", "branch-misses", libpfm4's "*-MISSES", PAPI's *_TCM, *_DCM, *_ICM
  // (cache misses), *_DM, *_IM (TLB misses) and PAPI_BR_MSP (mispredicted branches).
  const auto ends_with = [&](const char* tail) {
    const size_t n = std::strlen(tail);
    return name.size() >= n && name.compare(name.size() - n, n, tail) == 0;
  };
  std::string lower = name;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("miss") != std::string::npos) return Quantity::kMisses;
  if (name.rfind("PAPI_", 0) == 0)
    for (const char* tail : {"_TCM", "_DCM", "_ICM", "_DM", "_IM", "_MSP"})
      if (ends_with(tail)) return Quantity::kMisses;
  return Quantity::kOther;
}

std::vector<DerivedMetric> derived_metrics(const std::vector<std::string>& events) {
  std::vector<DerivedMetric> out;
  size_t cycles = events.size(), instructions = events.size();
  for (size_t e = 0; e < events.size(); ++e) {
    const Quantity q = quantity_of(events[e]);
    if (q == Quantity::kCycles && cycles == events.size()) cycles = e;
    if (q == Quantity::kInstructions && instructions == events.size()) instructions = e;
  }
  if (instructions == events.size()) return out;
  if (cycles != events.size()) out.push_back({"IPC", instructions, cycles, 1});
  for (size_t e = 0; e < events.size(); ++e)
    if (quantity_of(events[e]) == Quantity::kMisses)
      out.push_back({events[e] + " per 1000 instructions", e, instructions, 1000});
  return out;
}

namespace {

std::string canonical(const std::string& name) {
  if (name == "faults") return "page-faults";
  if (name == "cs") return "context-switches";
  if (name == "migrations") return "cpu-migrations";
  if (name == "cpu-cycles") return "cycles";
  if (name == "branch-instructions") return "branches";
  return name;
}

bool is_papi_name(const std::string& name) {
  return name.rfind("PAPI_", 0) == 0 || name.find(":::") != std::string::npos;
}

bool is_native_name(const std::string& name) {
  const size_t sep = name.find("::");
  return sep != std::string::npos && sep > 0 && sep + 2 < name.size();
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

std::string known_names() {
  std::string names;
  for (const KernelEvent& e : kernel_events())
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  return names + ", libpfm4's pmu::event names and PAPI_* presets";
}

// The PERIOD of "name:PERIOD" into `spec`.
bool parse_period(const std::string& text, EventSpec& spec, std::string& error) {
  uint64_t period = 0;
  bool digits = !text.empty() && text.size() <= 19;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  if (digits) period = std::stoull(text);
  if (!digits || period == 0 || period > (uint64_t(1) << 62)) {
    error = "--counters " + spec.name + ":" + text +
            ": the sampling period must be a whole number of events from 1 to 2^62";
    return false;
  }
  spec.sample_period = period;
  return true;
}

// "a/b/c/d": four hexadecimal numbers of at most 16 digits, nothing else.
bool parse_hex_fields(const std::string& text, uint64_t (&fields)[4]) {
  size_t field = 0, digits = 0;
  for (char c : text) {
    if (c == '/') {
      if (digits == 0 || ++field == 4) return false;
      digits = 0;
      continue;
    }
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0 || ++digits > 16) return false;
    fields[field] = fields[field] << 4 | uint64_t(v);
  }
  return field == 3 && digits > 0;
}

}  // namespace

bool parse_event_list(const std::string& text, std::vector<EventSpec>& out, std::string& error) {
  out.clear();
  if (text.empty()) {
    error = "--counters needs at least one event (" + known_names() + ")";
    return false;
  }
  for (const std::string& item : split(text)) {
    // "name:PERIOD" when what follows the last colon is a number; libpfm4's modifiers (":u",
    // ":c=2") are part of the name.
    const size_t colon = item.rfind(':');
    const bool has_period = colon != std::string::npos && colon > 0 && item[colon - 1] != ':' &&
                            colon + 1 < item.size() && item[colon + 1] >= '0' &&
                            item[colon + 1] <= '9';
    const std::string raw = has_period ? item.substr(0, colon) : item;
    const std::string name = canonical(raw);
    if (name.empty()) {
      error = "--counters '" + text + "' has an empty event name";
      return false;
    }
    if (std::any_of(out.begin(), out.end(), [&](const EventSpec& e) { return e.name == name; })) {
      error = "--counters names " + name + " twice";
      return false;
    }
    EventSpec spec;
    spec.name = name;
    const auto& kernel = kernel_events();
    auto it = std::find_if(kernel.begin(), kernel.end(),
                           [&](const KernelEvent& e) { return name == e.name; });
    if (it != kernel.end()) {
      spec.perf = it->perf;
      spec.encoded = true;
      spec.unit = it->unit;
    } else if (is_papi_name(name)) {
      spec.source = Source::kPapi;
      spec.unit = "events";
    } else if (is_native_name(name)) {
      spec.source = Source::kNative;
      spec.unit = "events";
    } else {
      error = "unknown counter event '" + raw + "' (known: " + known_names() + ")";
      return false;
    }
    if (has_period && !parse_period(item.substr(colon + 1), spec, error)) return false;
    out.push_back(spec);
  }
  const auto sampled = [](const EventSpec& e) { return e.sample_period != 0; };
  if (std::count_if(out.begin(), out.end(), sampled) > 1) {
    error = "--counters samples one event at most (one NAME:PERIOD)";
    return false;
  }
  std::stable_partition(out.begin(), out.end(), sampled);  // the sampled event leads
  if (out.size() > kMaxCounters) {
    error = "--counters names " + std::to_string(out.size()) + " events; at most " +
            std::to_string(kMaxCounters) + " are counted at once";
    return false;
  }
  return true;
}

std::string join_names(const std::vector<EventSpec>& events) {
  std::string s;
  for (const EventSpec& e : events) {
    s += (s.empty() ? "" : ",") + e.name;
    if (e.sample_period) s += ":" + std::to_string(e.sample_period);
  }
  return s;
}

std::string join_encodings(const std::vector<EventSpec>& events) {
  std::string s;
  char item[96];
  for (const EventSpec& e : events) {
    std::snprintf(item, sizeof item, "%s%x/%llx/%llx/%llx", s.empty() ? "" : ",", e.perf.type,
                  static_cast<unsigned long long>(e.perf.config),
                  static_cast<unsigned long long>(e.perf.config1),
                  static_cast<unsigned long long>(e.perf.config2));
    s += item;
  }
  return s;
}

bool apply_encodings(const std::string& text, std::vector<EventSpec>& events, std::string& error) {
  const std::vector<std::string> items = split(text);
  if (items.size() != events.size()) {
    error = "the counter encodings '" + text + "' do not match the " +
            std::to_string(events.size()) + " events";
    return false;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    uint64_t fields[4] = {};
    if (!parse_hex_fields(items[i], fields) || fields[0] > UINT32_MAX) {
      error = "the counter encoding '" + items[i] + "' of " + events[i].name + " is malformed";
      return false;
    }
    events[i].perf = {uint32_t(fields[0]), fields[1], fields[2], fields[3]};
    events[i].encoded = true;
  }
  return true;
}

}  // namespace omprof::counters
