#include "viewer/derived_cells.h"

#include <fmt/format.h>

#include <cmath>

namespace omprof::viewer {

namespace {

// Events with a rate column: not time itself, and not cycles or instructions (IPC says it).
bool has_rate(const std::string& event) {
  if (event == "task-clock" || event == "cpu-clock") return false;
  const counters::Quantity q = counters::quantity_of(event);
  return q != counters::Quantity::kCycles && q != counters::Quantity::kInstructions;
}

std::string value_text(double v) {
  return fmt::format("{:.4g}", v);
}

}  // namespace

std::vector<std::string> derived_columns(const std::vector<std::string>& events) {
  std::vector<std::string> columns;
  for (const counters::DerivedMetric& d : counters::derived_metrics(events))
    columns.push_back(d.name);
  for (const std::string& e : events)
    if (has_rate(e)) columns.push_back(e + "/s");
  if (!columns.empty()) columns.push_back("derived_err%");
  return columns;
}

void derived_cells(const std::vector<std::string>& events, const RowCounts& r,
                   std::vector<std::string>& cells) {
  const std::vector<counters::DerivedMetric> ratios = counters::derived_metrics(events);
  bool any = !ratios.empty(), computed = false, sampled = false;
  for (const counters::DerivedMetric& d : ratios) {
    const double den = r.counts[d.denominator];
    cells.push_back(den > 0 ? value_text(d.scale * r.counts[d.numerator] / den) : "-");
    computed |= den > 0;
    sampled |= den > 0 && !r.counts_exact;
  }
  for (size_t e = 0; e < events.size() && e < r.counts.size(); ++e) {
    if (!has_rate(events[e])) continue;
    any = true;
    cells.push_back(r.thread_ns > 0 ? value_text(r.counts[e] / (r.thread_ns * 1e-9)) : "-");
    computed |= r.thread_ns > 0;
    sampled |= r.thread_ns > 0 && !(r.counts_exact && r.time_exact);
  }
  if (!any) return;
  if (!computed)
    cells.push_back("-");
  else if (!sampled)
    cells.push_back("0.0");
  else
    cells.push_back(r.samples ? fmt::format("{:.1f}", 100.0 / std::sqrt(double(r.samples))) : "-");
}

}  // namespace omprof::viewer
