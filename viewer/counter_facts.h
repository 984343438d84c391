// A profile's counter events (`omprof run --counters`, format 1.16) as the report's header says
// them: each event's count over the program's threads, the thread that counted the most, and
// the threads whose counters could not be opened (those counts are missing, and said so).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proto/counter_events.h"
#include "proto/profile_reader.h"

namespace omprof::viewer {

struct CounterFacts {
  struct Event {
    std::string name;
    uint64_t total = 0;
    uint64_t most = 0;  // the most one thread counted
    uint32_t most_thread = 0;
    uint64_t period = 0;  // also sampled every this many events (0: counted only)
  };
  std::vector<Event> events;
  uint32_t threads_missing = 0;  // threads without counts (ThreadProfile.counter_errno)
  uint64_t samples_lost = 0;     // samples of the sampled event not recorded
  uint64_t cpu_ns = 0;           // the counted threads' CPU time: the events' rates are per it
  int first_errno = 0;
  // The counted threads' group times (format 1.19; 0 before): running below enabled means the
  // CPU's counters did not hold the events all the time, and the counts cover only running.
  uint64_t enabled_ns = 0, running_ns = 0;
  double counted_fraction() const;  // running / enabled, 1 when not known
  // Metrics derived from the totals (counters::derived_metrics: IPC, misses per 1000
  // instructions), exact: no sampling is involved in a thread's counts.
  struct Derived {
    counters::DerivedMetric metric;
    double value = 0;
  };
  std::vector<Derived> derived;
};
CounterFacts counter_facts(const format::Profile& p);

// "Counters:  page-faults 655440 (327720 on thread 1; 520000/s of CPU), ...", "Derived:   IPC
// 1.52, ..." where events allow, and a line for missing threads; nothing when the profile counted
// no events.
void print_counter_lines(std::ostream& out, const CounterFacts& c);
// [{"event": "page-faults", "total": 655440, "per_thread": {"0": 327720, ...}}, ...]
nlohmann::json counter_json(const format::Profile& p, const CounterFacts& c);
// [{"metric": "IPC", "value": 1.52, "per_thread": {"0": 1.61, ...}}, ...]
nlohmann::json derived_json(const format::Profile& p, const CounterFacts& c);

}  // namespace omprof::viewer
