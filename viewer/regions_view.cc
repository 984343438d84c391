#include "viewer/regions_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "omp/states.h"
#include "regions/names.h"
#include "viewer/derived_cells.h"
#include "viewer/sampling_error.h"

namespace omprof::viewer {

std::vector<regions::SummaryRow> region_summary(const format::Profile& p) {
  std::map<uint32_t, regions::ThreadSnapshot> threads;
  for (const auto& s : p.region_stats) {
    regions::NodeSnapshot n;
    n.node = uint32_t(s.node_id());
    n.calls = s.calls();
    n.wall_ns = s.wall_ns();
    n.cpu_ns = s.cpu_ns();
    n.self_wall_ns = s.self_wall_ns();
    n.self_cpu_ns = s.self_cpu_ns();
    n.active = s.active();
    threads[s.thread_index()].thread = s.thread_index();
    threads[s.thread_index()].nodes.push_back(n);
  }
  std::vector<regions::ThreadSnapshot> list;
  for (auto& [i, t] : threads) list.push_back(std::move(t));
  auto info = [&](uint32_t node) {
    regions::NodeInfo r;
    if (node >= 1 && node <= p.region_nodes.size()) {
      r.parent = uint32_t(p.region_nodes[node - 1].parent_id());
      r.region = int32_t(node);  // names are looked up per node below
    }
    return r;
  };
  auto name = [&](int32_t node) {
    return node >= 1 && size_t(node) <= p.region_nodes.size()
               ? p.str(p.region_nodes[size_t(node) - 1].name())
               : std::string();
  };
  return regions::summarize(list, info, name);
}

RegionCpu region_cpu_source(const format::Profile& p) {
  const auto& h = p.header;
  if (h.region_cpu_exact() || h.format_minor() < 6) return RegionCpu::kExact;
  return h.clock() == v1::CLOCK_WALL ? RegionCpu::kNone : RegionCpu::kSampled;
}

namespace {

// One standard error of a sampled time: sqrt(samples) periods, saturating (a file's period can
// be anything up to 2^64 ns, and a double beyond uint64_t's range does not convert).
uint64_t sampling_error_ns(uint64_t samples, double period_ns) {
  const double ns = std::sqrt(double(samples)) * period_ns;
  return ns < 18446744073709549568.0 ? uint64_t(ns) : UINT64_MAX;
}

// Each CPU-clock sample stands for the CPU time since the thread's previous one: every sample
// in a region (whatever its state: a spinning barrier burns CPU too) counts, from the raw
// samples (the model replaces wait samples with exact wall-clock waits). Inclusive.
void add_sampled_cpu(const format::Profile& p, std::vector<RegionRow>& rows) {
  const size_t n_nodes = p.region_nodes.size();
  std::vector<uint64_t> ns(n_nodes + 1), count(n_nodes + 1);
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    for (const auto& s : t.sample()) {
      const size_t node = s.region_node() <= n_nodes ? size_t(s.region_node()) : 0;
      ns[node] += s.weight_ns();
      count[node] += s.count();
    }
  }
  for (size_t n = n_nodes; n >= 1; --n) {
    const size_t parent = size_t(p.region_nodes[n - 1].parent_id());
    if (parent == 0 || parent >= n) continue;
    ns[parent] += ns[n];
    count[parent] += count[n];
  }
  const double period = double(p.header.period_ns());
  for (RegionRow& r : rows) {
    const size_t node = r.timing.node <= n_nodes ? size_t(r.timing.node) : 0;
    if (node == 0 && &r != &rows.front()) continue;
    r.cpu_ns = ns[node];
    r.cpu_err_ns = sampling_error_ns(count[node], period);
  }
}

// Exact region CPU times come from the clocks of the threads that opened the region. Team
// workers that inherited it (a region around a parallel loop) spent CPU in it too: their CPU-clock
// samples add it, with its sampling error, so that cpu_s covers the same threads as work/wait.
void add_inherited_cpu(const format::Profile& p, std::vector<RegionRow>& rows) {
  if (p.header.clock() == v1::CLOCK_WALL) return;  // samples are wall time: no CPU to add
  const size_t n_nodes = p.region_nodes.size();
  std::set<std::pair<uint32_t, uint64_t>> opened;  // (thread, node)
  for (const auto& s : p.region_stats) opened.emplace(s.thread_index(), s.node_id());
  std::vector<uint64_t> ns(n_nodes + 1), count(n_nodes + 1);
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    for (const auto& s : t.sample()) {
      // Every enclosing region this thread did not open itself gets the sample.
      for (size_t node = s.region_node() <= n_nodes ? size_t(s.region_node()) : 0, hops = 0;
           node != 0 && hops < 4096; ++hops) {
        if (!opened.count({index, node})) {
          ns[node] += s.weight_ns();
          count[node] += s.count();
        }
        const size_t parent = size_t(p.region_nodes[node - 1].parent_id());
        node = parent < node ? parent : 0;
      }
    }
  }
  const double period = double(p.header.period_ns());
  for (RegionRow& r : rows) {
    const size_t node = r.timing.node <= n_nodes ? size_t(r.timing.node) : 0;
    if (node == 0) continue;
    r.cpu_ns += ns[node];
    r.cpu_err_ns = sampling_error_ns(count[node], period);
  }
}

// Per region (inclusive) and thread, the sampled work; imbalance over the threads seen in it.
void add_imbalance(const Model& m, std::vector<RegionRow>& rows) {
  const format::Profile& p = *m.profile;
  const size_t n_nodes = p.region_nodes.size();
  struct PerThread {
    uint64_t work = 0, samples = 0;
  };
  std::vector<std::map<uint32_t, PerThread>> by_node(n_nodes + 1);
  for (const auto& s : m.samples) {
    // Idle workers are outside every region's work: not members of its team at that moment.
    if (omp::is_idle(s.state)) continue;
    for (size_t node = s.region_node <= n_nodes ? size_t(s.region_node) : 0, hops = 0; hops < 4096;
         ++hops) {
      PerThread& t = by_node[node][s.thread];
      if (!omp::is_wait(s.state)) t.work += s.weight_ns;
      t.samples += s.count;
      if (node == 0) break;
      const size_t parent = size_t(p.region_nodes[node - 1].parent_id());
      node = parent < node ? parent : 0;
      if (node == 0) break;  // the root row ("<no region>") is samples outside every region
    }
  }
  for (RegionRow& r : rows) {
    const size_t node = r.timing.node <= n_nodes ? size_t(r.timing.node) : 0;
    const auto& threads = by_node[node];
    uint64_t max = 0, sum = 0;
    r.samples = 0;
    for (const auto& [thread, t] : threads) {
      max = std::max(max, t.work);
      sum += t.work;
      r.samples += t.samples;
    }
    r.sampled_threads = uint32_t(threads.size());
    r.imbalance = threads.size() > 1 && max > 0
                      ? (double(max) - double(sum) / double(threads.size())) / double(max)
                      : 0.0;
  }
}

// Each region's counter events from its samples' (self), and with its nested regions' (incl).
void add_region_counters(const Model& m, std::vector<RegionRow>& rows) {
  const format::Profile& p = *m.profile;
  if (p.header.counter_event_size() == 0) return;
  const size_t n_nodes = p.region_nodes.size();
  using Counts = std::array<uint64_t, counters::kMaxCounters>;
  std::vector<Counts> self(n_nodes + 1), incl(n_nodes + 1);
  for (const auto& s : m.samples) {
    const size_t node = s.region_node <= n_nodes ? size_t(s.region_node) : 0;
    for (size_t c = 0; c < s.counters.size(); ++c) self[node][c] += s.counters[c];
  }
  incl = self;
  for (size_t n = n_nodes; n >= 1; --n) {
    const size_t parent = size_t(p.region_nodes[n - 1].parent_id());
    if (parent == 0 || parent >= n) continue;
    for (size_t c = 0; c < counters::kMaxCounters; ++c) incl[parent][c] += incl[n][c];
  }
  std::vector<std::array<int64_t, counters::kMaxCounters>> exact_self(n_nodes + 1),
      exact_incl(n_nodes + 1);
  if (p.header.region_counters_exact())
    for (const auto& s : p.region_stats) {
      const size_t node = s.node_id() <= n_nodes ? size_t(s.node_id()) : 0;
      for (int c = 0; c < s.counter_size() && c < int(counters::kMaxCounters); ++c)
        exact_incl[node][size_t(c)] += s.counter(c);
      for (int c = 0; c < s.self_counter_size() && c < int(counters::kMaxCounters); ++c)
        exact_self[node][size_t(c)] += s.self_counter(c);
    }
  for (RegionRow& r : rows) {
    const size_t node = r.timing.node <= n_nodes ? size_t(r.timing.node) : 0;
    r.counters_self = self[node];
    r.counters_incl = incl[node];
    r.exact_self = exact_self[node];
    r.exact_incl = exact_incl[node];
  }
}

}  // namespace

std::vector<RegionRow> region_rows(const Model& m) {
  const format::Profile& p = *m.profile;
  std::vector<RegionRow> rows;
  RegionRow root;
  root.timing.name = "<no region>";
  rows.push_back(root);
  for (auto& r : region_summary(p)) rows.push_back(RegionRow{r, 0, 0});

  // Samples: each counts for its region and every enclosing one. Parents have smaller ids
  // than their children (checked by the reader), so one pass from the last node up adds each
  // node's inclusive time to its parent, however deep the nesting.
  const size_t n_nodes = p.region_nodes.size();
  std::vector<uint64_t> work(n_nodes + 1), wait(n_nodes + 1), mpi(n_nodes + 1),
      overhead(n_nodes + 1);
  for (const auto& s : m.samples) {
    const size_t node = s.region_node <= n_nodes ? size_t(s.region_node) : 0;
    (omp::is_wait(s.state) ? wait : work)[node] += s.weight_ns;
    if (omp::is_mpi(s.state)) mpi[node] += s.weight_ns;
    if (omp::is_overhead(s.state)) overhead[node] += s.weight_ns;
  }
  rows[0].work_ns = work[0];
  rows[0].wait_ns = wait[0];
  rows[0].mpi_ns = mpi[0];
  rows[0].overhead_ns = overhead[0];
  for (size_t n = n_nodes; n >= 1; --n) {
    const size_t parent = size_t(p.region_nodes[n - 1].parent_id());
    if (parent == 0 || parent >= n) continue;
    work[parent] += work[n];
    wait[parent] += wait[n];
    mpi[parent] += mpi[n];
    overhead[parent] += overhead[n];
  }
  for (size_t i = 1; i < rows.size(); ++i) {
    const uint32_t node = rows[i].timing.node;
    if (node > n_nodes) continue;
    rows[i].work_ns = work[node];
    rows[i].wait_ns = wait[node];
    rows[i].mpi_ns = mpi[node];
    rows[i].overhead_ns = overhead[node];
  }
  switch (region_cpu_source(p)) {
    case RegionCpu::kExact:
      for (RegionRow& r : rows) r.cpu_ns = uint64_t(std::max<int64_t>(0, r.timing.cpu_sum_ns));
      add_inherited_cpu(p, rows);
      break;
    case RegionCpu::kSampled:
      add_sampled_cpu(p, rows);
      break;
    case RegionCpu::kNone:
      break;
  }
  add_imbalance(m, rows);
  add_region_counters(m, rows);
  return rows;
}

std::vector<RegionRow> largest_region_rows(std::vector<RegionRow> rows, size_t max_rows,
                                           size_t& cut, uint64_t& cut_self_ns) {
  cut = 0;
  cut_self_ns = 0;
  if (rows.size() <= max_rows + 1) return rows;  // <no region> and max_rows regions
  auto incl = [](const RegionRow& r) {
    return uint64_t(std::max<int64_t>(0, r.timing.wall_max_ns));
  };
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return incl(rows[a]) > incl(rows[b]); });
  std::unordered_map<uint32_t, size_t> row_of;  // node -> row
  for (size_t i = 0; i < rows.size(); ++i) row_of[rows[i].timing.node] = i;
  std::vector<bool> keep(rows.size());
  keep[0] = true;  // <no region>, besides the max_rows regions
  size_t kept = 0;
  for (size_t i : order) {
    if (kept >= max_rows) break;
    // The row and every enclosing region not kept yet (tree order needs its parents).
    for (size_t at = i; !keep[at]; ++kept) {
      keep[at] = true;
      auto parent = row_of.find(rows[at].timing.parent);
      if (rows[at].timing.node == 0 || parent == row_of.end()) break;
      at = parent->second;
    }
  }
  std::vector<RegionRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (keep[i]) {
      out.push_back(std::move(rows[i]));
    } else {
      ++cut;
      cut_self_ns += uint64_t(std::max<int64_t>(0, rows[i].timing.self_max_ns));
    }
  }
  return out;
}

namespace {

// What the region tables' cells share: the run's window for percentages, and where the CPU
// times come from.
struct RegionCells {
  explicit RegionCells(const Model& m) {
    const auto& h = m.profile->header;
    window = double(h.duration_ns() - std::min(h.duration_ns(), h.region_window_start_ns()));
    cpu = region_cpu_source(*m.profile);
    source = cpu == RegionCpu::kExact ? "exact" : cpu == RegionCpu::kSampled ? "sampled" : "none";
    events.assign(h.counter_event().begin(), h.counter_event().end());
    exact_counters = h.region_counters_exact();
  }
  std::vector<std::string> events;  // counter events (format 1.16)
  bool exact_counters = false;      // also read at begin and end (--region-counters, 1.19)
  std::string cpu_text(const RegionRow& r) const {
    return cpu == RegionCpu::kNone ? std::string("-") : seconds(r.cpu_ns);
  }
  // Exact CPU has an error only for the part added from inheriting workers' samples.
  std::string err_text(const RegionRow& r) const {
    return cpu == RegionCpu::kSampled || (cpu == RegionCpu::kExact && r.cpu_err_ns)
               ? seconds(r.cpu_err_ns)
               : std::string("-");
  }
  static std::string imbalance_text(const RegionRow& r) {
    if (r.sampled_threads < 2) return std::string(r.samples ? "0.0" : "n/a");
    return (r.samples < kFewSamples ? "~" : "") + fmt::format("{:.1f}", 100.0 * r.imbalance);
  }
  double window = 0;
  RegionCpu cpu = RegionCpu::kNone;
  const char* source = "none";
};

// Each counter event's self and inclusive count (format 1.16): column names and cells, in
// the same order.
void counter_columns(const RegionCells& c, std::vector<std::string>& columns) {
  for (const std::string& e : c.events) {
    columns.push_back(e + "_self");
    columns.push_back(e);
  }
  if (c.exact_counters)
    for (const std::string& e : c.events) {
      columns.push_back(e + "_exact_self");
      columns.push_back(e + "_exact");
    }
  for (const std::string& d : derived_columns(c.events)) columns.push_back(d);
}
// The region's derived metrics: from its exact counts and wall time where it has them, else
// from its samples (inclusive).
RowCounts derived_inputs(const RegionCells& c, const RegionRow& r) {
  RowCounts in;
  in.samples = r.samples;
  in.counts_exact = in.time_exact = c.exact_counters;
  in.thread_ns = c.exact_counters ? double(r.timing.wall_sum_ns) : double(r.work_ns + r.wait_ns);
  for (size_t e = 0; e < in.counts.size(); ++e)
    in.counts[e] = c.exact_counters ? double(r.exact_incl[e]) : double(r.counters_incl[e]);
  return in;
}
void counter_cells(const RegionCells& c, const RegionRow& r, std::vector<std::string>& cells) {
  for (size_t e = 0; e < c.events.size() && e < r.counters_self.size(); ++e) {
    cells.push_back(std::to_string(r.counters_self[e]));
    cells.push_back(std::to_string(r.counters_incl[e]));
  }
  if (c.exact_counters)
    for (size_t e = 0; e < c.events.size() && e < r.exact_self.size(); ++e) {
      cells.push_back(std::to_string(r.exact_self[e]));
      cells.push_back(std::to_string(r.exact_incl[e]));
    }
  derived_cells(c.events, derived_inputs(c, r), cells);
}

Table region_csv_table(const std::vector<RegionRow>& rows, const RegionCells& c) {
  std::vector<std::string> columns = {
      "node_id",    "parent_id",  "depth",          "<name",           "calls",   "threads",
      "incl_s",     "incl_min_s", "incl_avg_s",     "self_s",          "cpu_s",   "pct",
      "work_s",     "wait_s",     "efficiency",     "imbalance",       "active",  "mpi_wait_s",
      "cpu_source", "cpu_err_s",  "imbalance_wall", "sampled_threads", "samples", "overhead_s"};
  counter_columns(c, columns);
  Table t(columns);
  for (const auto& r : rows) {
    const auto& x = r.timing;
    std::vector<std::string> cells = {
        std::to_string(x.node),
        std::to_string(x.parent),
        std::to_string(x.node ? x.depth + 1 : 0),
        x.name,
        std::to_string(x.calls),
        std::to_string(x.threads),
        seconds(uint64_t(x.wall_max_ns)),
        seconds(uint64_t(x.wall_min_ns)),
        seconds(uint64_t(x.wall_avg_ns)),
        seconds(uint64_t(std::max<int64_t>(0, x.self_max_ns))),
        c.cpu_text(r),
        percent(double(x.wall_max_ns), c.window),
        seconds(r.work_ns),
        seconds(r.wait_ns),
        r.work_ns + r.wait_ns
            ? fmt::format("{:.3f}", double(r.work_ns) / double(r.work_ns + r.wait_ns))
            : "",
        fmt::format("{:.3f}", r.imbalance),
        x.active ? "true" : "false",
        seconds(r.mpi_ns),
        c.source,
        c.err_text(r),
        fmt::format("{:.3f}", x.imbalance()),
        std::to_string(r.sampled_threads),
        std::to_string(r.samples),
        seconds(r.overhead_ns)};
    counter_cells(c, r, cells);
    t.row(cells);
  }
  return t;
}

Table region_text_table(const std::vector<RegionRow>& rows, const RegionCells& c) {
  std::vector<std::string> columns = {"calls", "thr",    "incl_s", "self_s", "cpu_s", "cpu_err",
                                      "%",     "work_s", "wait_s", "ovh_s",  "eff%",  "imb%"};
  counter_columns(c, columns);
  columns.push_back("<region");
  Table t(columns);
  for (const auto& r : rows) {
    const auto& x = r.timing;
    const bool root = x.node == 0;
    if (root && r.work_ns + r.wait_ns == 0) continue;  // every sample is in some region
    std::string label = root ? x.name
                             : std::string(size_t(2 * std::min(x.depth + 1, 20)), ' ') +
                                   regions::escape_name(x.name) + (x.active ? " [active]" : "");
    // thr: the threads that ran in the region, its callers or team members sampled in it
    // (cpu_s counts both: a region around a parallel loop has more CPU than wall time).
    std::vector<std::string> cells = {
        root ? "" : std::to_string(x.calls),
        root ? "" : std::to_string(std::max<uint32_t>(uint32_t(x.threads), r.sampled_threads)),
        root ? "" : seconds(uint64_t(x.wall_max_ns)),
        root ? "" : seconds(uint64_t(std::max<int64_t>(0, x.self_max_ns))),
        c.cpu_text(r),
        c.err_text(r),
        root ? "" : percent(double(x.wall_max_ns), c.window),
        seconds(r.work_ns),
        seconds(r.wait_ns),
        seconds(r.overhead_ns),
        r.work_ns + r.wait_ns ? percent(double(r.work_ns), double(r.work_ns + r.wait_ns)) : "n/a",
        root ? "" : RegionCells::imbalance_text(r)};
    counter_cells(c, r, cells);
    cells.push_back(label);
    t.row(cells);
  }
  return t;
}

Table region_table_of(const Model& m, const std::vector<RegionRow>& rows, Format format) {
  const RegionCells cells(m);
  return machine_readable(format) ? region_csv_table(rows, cells) : region_text_table(rows, cells);
}

}  // namespace

Table region_tree_table(const Model& m, Format format, size_t max_rows) {
  size_t cut = 0;
  uint64_t cut_self_ns = 0;
  std::vector<RegionRow> rows = region_rows(m);
  if (max_rows) rows = largest_region_rows(std::move(rows), max_rows, cut, cut_self_ns);
  Table t = region_table_of(m, rows, format);
  if (cut && machine_readable(format)) {
    std::vector<std::string> note(24);
    note[2] = "1";
    note[3] = fmt::format(
        "<{} more regions, {} s of self time: only the {} of largest inclusive time are "
        "shown; omprof report --regions lists them all>",
        cut, seconds(cut_self_ns), max_rows);
    t.row(std::move(note));
  }
  return t;
}

}  // namespace omprof::viewer
