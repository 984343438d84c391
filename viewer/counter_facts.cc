#include "viewer/counter_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "proto/counter_events.h"

namespace omprof::viewer {

CounterFacts counter_facts(const format::Profile& p) {
  CounterFacts c;
  for (int e = 0; e < p.header.counter_event_size(); ++e)
    c.events.push_back({p.header.counter_event(e), 0, 0, 0,
                        e < p.header.counter_period_size() ? p.header.counter_period(e) : 0});
  if (c.events.empty()) return c;
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    c.samples_lost += t.counter_samples_lost();
    if (t.counter_total_size() > 0) {
      c.cpu_ns += t.cpu_time_ns();
      c.enabled_ns += t.counter_enabled_ns();
      c.running_ns += t.counter_running_ns();
    }
    if (t.counter_total_size() == 0) {
      ++c.threads_missing;
      if (!c.first_errno) c.first_errno = t.counter_errno();
      continue;
    }
    for (size_t e = 0; e < c.events.size() && int(e) < t.counter_total_size(); ++e) {
      const uint64_t n = t.counter_total(int(e));
      c.events[e].total += n;
      if (n > c.events[e].most) {
        c.events[e].most = n;
        c.events[e].most_thread = index;
      }
    }
  }
  std::vector<std::string> names;
  for (const CounterFacts::Event& e : c.events) names.push_back(e.name);
  for (const counters::DerivedMetric& d : counters::derived_metrics(names))
    if (c.events[d.denominator].total > 0)
      c.derived.push_back({d, d.scale * double(c.events[d.numerator].total) /
                                  double(c.events[d.denominator].total)});
  return c;
}

double CounterFacts::counted_fraction() const {
  return enabled_ns ? double(running_ns) / double(enabled_ns) : 1.0;
}

namespace {

// The event's count per second of the counted threads' CPU time, "" when none was measured.
double per_cpu_second(const CounterFacts& c, const CounterFacts::Event& e) {
  return c.cpu_ns ? double(e.total) / (double(c.cpu_ns) * 1e-9) : 0.0;
}
std::string rate_text(const CounterFacts& c, const CounterFacts::Event& e) {
  return c.cpu_ns ? fmt::format("; {:.0f}/s of CPU", per_cpu_second(c, e)) : "";
}

}  // namespace

void print_counter_lines(std::ostream& out, const CounterFacts& c) {
  if (c.events.empty()) return;
  std::string line;
  for (const CounterFacts::Event& e : c.events)
    line += fmt::format("{}{} {} ({} on thread {}{}{})", line.empty() ? "" : ", ", e.name, e.total,
                        e.most, e.most_thread, rate_text(c, e),
                        e.period ? fmt::format("; sampled every {}", e.period) : "");
  out << "Counters:  " << line << "\n";
  std::string derived;
  for (const CounterFacts::Derived& d : c.derived)
    derived += fmt::format("{}{} {:.3g}", derived.empty() ? "" : ", ", d.metric.name, d.value);
  if (!derived.empty()) out << "Derived:   " << derived << "\n";
  if (c.samples_lost)
    out << fmt::format(
        "           {} samples of the sampled event not recorded (taken while the "
        "thread unwound itself): their events are in the totals only\n",
        c.samples_lost);
  if (c.counted_fraction() < 0.999)
    out << fmt::format(
        "           counted {:.1f}% of the time they were enabled: the CPU's counters did not "
        "hold these events all the time (another user of the counters?); the counts cover "
        "only that share\n",
        100 * c.counted_fraction());
  if (c.threads_missing)
    out << fmt::format(
        "           not counted on {} thread(s): their counters could not be "
        "opened ({}); the totals leave them out\n",
        c.threads_missing, c.first_errno ? std::strerror(c.first_errno) : "unknown reason");
}

nlohmann::json counter_json(const format::Profile& p, const CounterFacts& c) {
  nlohmann::json events = nlohmann::json::array();
  for (size_t e = 0; e < c.events.size(); ++e) {
    nlohmann::json per_thread = nlohmann::json::object();
    for (const auto& [index, t] : p.threads)
      if (int(e) < t.counter_total_size())
        per_thread[std::to_string(index)] = t.counter_total(int(e));
    events.push_back({{"event", c.events[e].name},
                      {"total", c.events[e].total},
                      {"sample_period", c.events[e].period},
                      {"per_cpu_second", per_cpu_second(c, c.events[e])},
                      {"counted_fraction", c.counted_fraction()},
                      {"per_thread", per_thread}});
  }
  return events;
}

nlohmann::json derived_json(const format::Profile& p, const CounterFacts& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const CounterFacts::Derived& d : c.derived) {
    nlohmann::json per_thread = nlohmann::json::object();
    const int num = int(d.metric.numerator), den = int(d.metric.denominator);
    for (const auto& [index, t] : p.threads)
      if (t.counter_total_size() > std::max(num, den) && t.counter_total(den) > 0)
        per_thread[std::to_string(index)] =
            d.metric.scale * double(t.counter_total(num)) / double(t.counter_total(den));
    out.push_back({{"metric", d.metric.name}, {"value", d.value}, {"per_thread", per_thread}});
  }
  return out;
}

}  // namespace omprof::viewer
