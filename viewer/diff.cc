#include "viewer/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "omp/states.h"
#include "viewer/counter_facts.h"
#include "viewer/export.h"
#include "viewer/regions_view.h"
#include "viewer/report.h"

namespace omprof::viewer {

void DiffSide::add(const Model& m) {
  const format::Profile& p = *m.profile;
  const auto& event_names = p.header.counter_event();
  for (const auto& [name, r] : flat_rows(m)) {
    DiffTimes& t = functions[name];
    t.self += r.self;
    t.total += r.total;
    t.work += r.work;
    t.wait += r.wait;
    for (int e = 0; e < event_names.size() && size_t(e) < r.counters_total.size(); ++e)
      t.events[event_names[e]] += r.counters_total[size_t(e)];
  }
  const CounterFacts facts = counter_facts(p);
  for (const CounterFacts::Event& e : facts.events) {
    DiffCounter& c = counters[e.name];
    c.total += e.total;
    c.cpu_ns += facts.cpu_ns;
  }
  for (const auto& [key, r] : parallel_region_totals(m)) {
    DiffParallelRegion& d = parallel_regions[key];
    d.instances += r.instances;
    d.wall_ns += double(r.wall);
    d.incl += r.incl;
    d.work += r.work;
    d.wait += r.wait;
  }
  for (const auto& s : m.samples) {
    all.total += s.weight_ns;
    (omp::is_wait(s.state) ? all.wait : all.work) += s.weight_ns;
  }
  for (const RegionRow& r : region_rows(m)) {
    if (r.timing.node == 0) continue;  // outside every region: the totals say it
    DiffRegion& d = regions[region_path(p, r.timing.node)];
    d.incl_ns += double(r.timing.wall_max_ns);
    d.calls += r.timing.calls;
    d.work += r.work_ns;
    d.wait += r.wait_ns;
    ++d.profiles;
  }
  wall_ns += double(p.header.duration_ns());
  ++profiles;
}

void DiffSide::finish() {
  for (auto& [path, r] : regions)
    if (r.profiles) r.incl_ns /= double(r.profiles);
  for (auto& [key, r] : parallel_regions)
    if (profiles) r.wall_ns /= double(profiles);
  if (profiles) wall_ns /= double(profiles);
}

namespace {

std::string secs(double ns) {
  return fmt::format("{:.3f}", ns * 1e-9);
}

std::string delta(double base, double now) {
  return fmt::format("{:+.3f}", (now - base) * 1e-9);
}

}  // namespace

// The change relative to the base: empty (JSON null) where the base had none of it; text says
// "new" then, and "gone" where the new run has none. In text, a base under a microsecond is
// none (a change from there read "+20795351.3%"), and a growth beyond ten times is the ratio.
std::string change_percent(double base, double now, Format format) {
  const bool text = format == Format::kText;
  if (base == 0 || (text && base < 1000 && now >= 1000))
    return now == 0 ? "0.0" : text ? "new" : "";
  if (now == 0 && text) return "gone";
  if (text && now > 10 * base) return fmt::format("x{:.1f}", now / base);
  return fmt::format("{:+.1f}", 100.0 * (now - base) / base);
}

Table diff_functions_table(const DiffSide& base, const DiffSide& now, size_t top, bool by_total,
                           Format format) {
  std::set<std::string> names;
  for (const auto& [n, t] : base.functions) names.insert(n);
  for (const auto& [n, t] : now.functions) names.insert(n);
  struct Row {
    std::string name;
    DiffTimes b, n;
  };
  std::vector<Row> rows;
  for (const auto& name : names) {
    Row r{name, {}, {}};
    if (auto it = base.functions.find(name); it != base.functions.end()) r.b = it->second;
    if (auto it = now.functions.find(name); it != now.functions.end()) r.n = it->second;
    rows.push_back(r);
  }
  auto change = [](uint64_t a, uint64_t b) { return std::fabs(double(b) - double(a)); };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& x, const Row& y) {
    const double sx = change(x.b.self, x.n.self), sy = change(y.b.self, y.n.self);
    const double tx = change(x.b.total, x.n.total), ty = change(y.b.total, y.n.total);
    if (by_total) return tx != ty ? tx > ty : sx > sy;
    return sx != sy ? sx > sy : tx > ty;
  });
  std::vector<std::string> columns = {
      "base_self_s", "new_self_s",    "delta_self_s", "delta_self%",  "base_total_s",
      "new_total_s", "delta_total_s", "delta_total%", "delta_work_s", "delta_wait_s"};
  const std::vector<std::string> events = shared_events(base, now);
  for (const std::string& e : events) columns.push_back("delta_" + e);
  columns.push_back("<function");
  Table t(columns);
  auto count = [](const DiffTimes& d, const std::string& e) {
    auto it = d.events.find(e);
    return it == d.events.end() ? 0.0 : double(it->second);
  };
  for (size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
    const Row& r = rows[i];
    std::vector<std::string> cells = {secs(double(r.b.self)),
                                      secs(double(r.n.self)),
                                      delta(double(r.b.self), double(r.n.self)),
                                      change_percent(double(r.b.self), double(r.n.self), format),
                                      secs(double(r.b.total)),
                                      secs(double(r.n.total)),
                                      delta(double(r.b.total), double(r.n.total)),
                                      change_percent(double(r.b.total), double(r.n.total), format),
                                      delta(double(r.b.work), double(r.n.work)),
                                      delta(double(r.b.wait), double(r.n.wait))};
    for (const std::string& e : events)
      cells.push_back(fmt::format("{:+.0f}", count(r.n, e) - count(r.b, e)));
    cells.push_back(r.name);
    t.row(cells);
  }
  return t;
}

Table diff_regions_table(const DiffSide& base, const DiffSide& now, Format format) {
  std::set<std::string> paths;
  for (const auto& [p, r] : base.regions) paths.insert(p);
  for (const auto& [p, r] : now.regions) paths.insert(p);
  std::vector<std::pair<std::string, std::pair<DiffRegion, DiffRegion>>> rows;
  for (const auto& path : paths) {
    DiffRegion b, n;
    if (auto it = base.regions.find(path); it != base.regions.end()) b = it->second;
    if (auto it = now.regions.find(path); it != now.regions.end()) n = it->second;
    rows.push_back({path, {b, n}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    return std::fabs(x.second.second.incl_ns - x.second.first.incl_ns) >
           std::fabs(y.second.second.incl_ns - y.second.first.incl_ns);
  });
  Table t({"base_incl_s", "new_incl_s", "delta_incl_s", "delta_incl%", "base_calls", "new_calls",
           "base_wait_s", "new_wait_s", "delta_wait_s", "<region"});
  for (const auto& [path, bn] : rows) {
    const auto& [b, n] = bn;
    t.row({secs(b.incl_ns), secs(n.incl_ns), delta(b.incl_ns, n.incl_ns),
           change_percent(b.incl_ns, n.incl_ns, format), std::to_string(b.calls),
           std::to_string(n.calls), secs(double(b.wait)), secs(double(n.wait)),
           delta(double(b.wait), double(n.wait)), path});
  }
  return t;
}

Table diff_parallel_regions_table(const DiffSide& base, const DiffSide& now, Format format) {
  std::set<std::string> keys;
  for (const auto& [k, r] : base.parallel_regions) keys.insert(k);
  for (const auto& [k, r] : now.parallel_regions) keys.insert(k);
  struct Row {
    std::string key;
    DiffParallelRegion b, n;
  };
  std::vector<Row> rows;
  for (const auto& key : keys) {
    Row r{key, {}, {}};
    if (auto it = base.parallel_regions.find(key); it != base.parallel_regions.end())
      r.b = it->second;
    if (auto it = now.parallel_regions.find(key); it != now.parallel_regions.end())
      r.n = it->second;
    rows.push_back(r);
  }
  // By the change of wall time where both sides have it: thread time grows with the team.
  auto change = [](const Row& r) {
    if (r.b.wall_ns > 0 && r.n.wall_ns > 0) return std::fabs(r.n.wall_ns - r.b.wall_ns);
    return std::fabs(double(r.n.incl) - double(r.b.incl));
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& x, const Row& y) { return change(x) > change(y); });
  // The wait share in percent of the time inside: how the construct's balance changed.
  auto wait_share = [&](const DiffParallelRegion& r) {
    return r.incl ? fmt::format("{:.1f}", 100.0 * double(r.wait) / double(r.incl))
                  : unknown_cell(format);
  };
  Table t({"base_wall_s", "new_wall_s", "delta_wall%", "base_incl_s", "new_incl_s", "delta_incl_s",
           "delta_incl%", "base_instances", "new_instances", "base_wait%", "new_wait%",
           "delta_work_s", "delta_wait_s", "<parallel region"});
  t.last_in_csv(0, 3);  // appended (format 1.14)
  auto wall = [&](double ns) { return ns > 0 ? secs(ns) : unknown_cell(format); };
  for (const Row& r : rows)
    t.row({wall(r.b.wall_ns), wall(r.n.wall_ns),
           r.b.wall_ns > 0 && r.n.wall_ns > 0 ? change_percent(r.b.wall_ns, r.n.wall_ns, format)
                                              : unknown_cell(format),
           secs(double(r.b.incl)), secs(double(r.n.incl)),
           delta(double(r.b.incl), double(r.n.incl)),
           change_percent(double(r.b.incl), double(r.n.incl), format),
           std::to_string(r.b.instances), std::to_string(r.n.instances), wait_share(r.b),
           wait_share(r.n), delta(double(r.b.work), double(r.n.work)),
           delta(double(r.b.wait), double(r.n.wait)), r.key});
  return t;
}

Table diff_totals_table(const DiffSide& base, const DiffSide& now, Format format) {
  Table t({"base_s", "new_s", "delta_s", "delta%", "<measure"});
  auto row = [&](double b, double n, const char* what) {
    t.row({secs(b), secs(n), delta(b, n), change_percent(b, n, format), what});
  };
  row(base.wall_ns, now.wall_ns, "wall time (per profile)");
  row(double(base.all.total), double(now.all.total), "thread time");
  row(double(base.all.work), double(now.all.work), "work");
  row(double(base.all.wait), double(now.all.wait), "wait");
  return t;
}

std::vector<std::string> shared_events(const DiffSide& base, const DiffSide& now) {
  std::vector<std::string> events;
  for (const auto& [name, c] : base.counters)
    if (now.counters.count(name)) events.push_back(name);
  return events;
}

Table diff_counters_table(const DiffSide& base, const DiffSide& now, Format format) {
  std::set<std::string> names;
  for (const auto& [n, c] : base.counters) names.insert(n);
  for (const auto& [n, c] : now.counters) names.insert(n);
  Table t({"base", "new", "delta", "delta%", "base_per_cpu_s", "new_per_cpu_s", "<event"});
  auto rate = [&](const DiffCounter& c) {
    return c.cpu_ns ? fmt::format("{:.0f}", double(c.total) / (double(c.cpu_ns) * 1e-9))
                    : unknown_cell(format);
  };
  const std::string unknown = unknown_cell(format);
  for (const std::string& name : names) {
    const auto b = base.counters.find(name), n = now.counters.find(name);
    const bool both = b != base.counters.end() && n != now.counters.end();
    auto total = [&](auto it, const DiffSide& side) {
      return it == side.counters.end() ? unknown : std::to_string(it->second.total);
    };
    t.row(
        {total(b, base), total(n, now),
         both ? fmt::format("{:+d}", int64_t(n->second.total) - int64_t(b->second.total)) : unknown,
         both ? change_percent(double(b->second.total), double(n->second.total), format) : unknown,
         b == base.counters.end() ? unknown : rate(b->second),
         n == now.counters.end() ? unknown : rate(n->second), name});
  }
  return t;
}

}  // namespace omprof::viewer
