#include "viewer/scaling_counters.h"

#include <fmt/format.h>

#include <algorithm>

#include "proto/counter_events.h"

namespace omprof::viewer {

std::vector<std::string> series_events(const ScalingAnalysis& a) {
  std::vector<std::string> events;
  for (const std::string& name : a.runs[a.reference].counter_order)
    if (std::all_of(a.runs.begin(), a.runs.end(),
                    [&](const ScalingRun& r) { return r.counters.count(name) > 0; }))
      events.push_back(name);
  return events;
}

namespace {

// A run's total of `event` per core under weak scaling (the work grows with the cores), as a
// whole under strong scaling.
double normalised(const ScalingRun& r, const std::string& event, ScalingKind kind) {
  const double total = r.counters.at(event);
  return kind == ScalingKind::kWeak ? total / double(std::max<size_t>(r.cores(), 1)) : total;
}

std::string ratio(double num, double den) {
  return den > 0 ? fmt::format("{:.3f}", num / den) : std::string();
}

}  // namespace

Table counters_table(const ScalingAnalysis& a) {
  const std::vector<std::string> events = series_events(a);
  std::vector<std::string> columns = {"<counter"};
  for (const std::string& l : a.labels) columns.push_back(l);
  Table t(columns);
  const ScalingRun& ref = a.runs[a.reference];
  for (const std::string& e : events) {
    std::vector<std::string> totals = {e}, scaling = {e + " scaling"};
    for (const ScalingRun& r : a.runs) {
      totals.push_back(fmt::format("{:.0f}", r.counters.at(e)));
      scaling.push_back(ratio(normalised(ref, e, a.kind), normalised(r, e, a.kind)));
    }
    t.row(totals);
    t.row(scaling);
  }
  for (const counters::DerivedMetric& d : counters::derived_metrics(events)) {
    std::vector<std::string> values = {d.name}, versus = {d.name + " vs reference"};
    const auto value = [&](const ScalingRun& r) {
      const double den = r.counters.at(events[d.denominator]);
      return den > 0 ? d.scale * r.counters.at(events[d.numerator]) / den : 0.0;
    };
    for (const ScalingRun& r : a.runs) {
      values.push_back(fmt::format("{:.3f}", value(r)));
      versus.push_back(ratio(value(r), value(ref)));
    }
    t.row(values);
    t.row(versus);
  }
  return t;
}

}  // namespace omprof::viewer
