#include "proto/counter_events.h"

#include <linux/perf_event.h>

#include <algorithm>

namespace omprof::counters {

const std::vector<KernelEvent>& kernel_events() {
  static const std::vector<KernelEvent> events = {
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS, "faults", "page faults (minor and major)"},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "faults",
       "page faults served without I/O (first touch, copy-on-write)"},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "faults", "page faults that read a file"},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "switches",
       "times the thread left its CPU (blocking, yielding, preempted)"},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "migrations",
       "times the thread moved to another CPU"},
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK, "ns", "the thread's CPU time"},
  };
  return events;
}

namespace {

std::string canonical(const std::string& name) {
  if (name == "faults") return "page-faults";
  if (name == "cs") return "context-switches";
  if (name == "migrations") return "cpu-migrations";
  return name;
}

bool is_papi_name(const std::string& name) {
  return name.rfind("PAPI_", 0) == 0 || name.find("::") != std::string::npos;
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
  return names + ", PAPI_* presets and PAPI native names";
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
  if (spec.source != Source::kKernel) {
    error = "--counters " + spec.name + ":" + text + ": only kernel events can be sampled";
    return false;
  }
  spec.sample_period = period;
  return true;
}

}  // namespace

bool parse_event_list(const std::string& text, std::vector<EventSpec>& out, std::string& error) {
  out.clear();
  if (text.empty()) {
    error = "--counters needs at least one event (" + known_names() + ")";
    return false;
  }
  for (const std::string& item : split(text)) {
    const size_t colon = item.rfind(':');
    const bool has_period = colon != std::string::npos && colon > 0 && item[colon - 1] != ':';
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
      spec.perf_config = it->perf_config;
      spec.unit = it->unit;
    } else if (is_papi_name(name)) {
      spec.source = Source::kPapi;
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

}  // namespace omprof::counters
