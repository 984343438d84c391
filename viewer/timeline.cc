#include "viewer/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "omp/accounting.h"
#include "omp/states.h"
#include "omp/user_model.h"
#include "proto/mpi_calls.h"
#include "proto/text.h"
#include "proto/timeline.h"
#include "viewer/export.h"
#include "viewer/state_measurement.h"

namespace omprof::viewer {

namespace {

std::string construct_name(const Model& m, uint64_t fork_id) {
  const auto it = m.forks.find(fork_id);
  return fork_id && it != m.forks.end() ? omp::region_frame_name(it->second) : "";
}

// The grid index of a lane's own interval i: lanes start at their rank's start.
uint64_t lane_offset_ns(const Timeline& t, const TimelineLane& lane) {
  return lane.start_unix_ns > t.origin_unix_ns ? lane.start_unix_ns - t.origin_unix_ns : 0;
}

// Moves a lane onto the grid of `interval_ns` intervals from the origin.
void regrid(TimelineLane& lane, uint64_t offset_ns, uint64_t interval_ns) {
  std::vector<TimelineLane::Cell> grid;
  for (size_t i = 0; i < lane.cells.size(); ++i) {
    const TimelineLane::Cell& c = lane.cells[i];
    if (!c.holds_data()) continue;
    // The cell's middle decides its grid interval (the lane's intervals nest in the grid's
    // when the ranks started together; otherwise within half an interval).
    const uint64_t middle = offset_ns + i * lane.interval_ns + lane.interval_ns / 2;
    const size_t g = size_t(middle / interval_ns);
    if (g >= grid.size()) grid.resize(g + 1);
    TimelineLane::Cell& to = grid[g];
    for (size_t k = 0; k < c.ns.size(); ++k) to.ns[k] += c.ns[k];
    to.samples += c.samples;
    to.measured_waits += c.measured_waits;
    for (size_t k = 0; k < c.counters.size(); ++k) to.counters[k] += c.counters[k];
    to.parallel_region = c.parallel_region;
    to.region = c.region;
    to.leads.insert(to.leads.end(), c.leads.begin(), c.leads.end());
  }
  lane.cells = std::move(grid);
  lane.interval_ns = interval_ns;
  for (TimelineLane::Event& e : lane.events) {
    e.start_ns += offset_ns;
    e.end_ns += offset_ns;
  }
}

// The interval's leading samples of thread `thread`, as the model sees them.
void add_leads(TimelineLane::Cell& c, const Model& m, uint32_t thread, const v1::Interval& in) {
  for (int k = 0; k < in.lead_sample_size() && k < in.lead_samples_size(); ++k) {
    const ViewSample* v = m.view_of(thread, in.lead_sample(k));
    if (!v) continue;
    TimelineLane::Cell::Lead lead;
    lead.stack = v->stack;
    lead.wait = omp::is_wait(v->state);
    lead.samples = in.lead_samples(k);
    c.leads.push_back(std::move(lead));
  }
}

void add_events(TimelineLane& lane, const format::Profile& p, const v1::ThreadProfile& th) {
  lane.event_min_ns = th.event_min_ns();
  lane.events_dropped = th.events_dropped();
  for (const v1::Event& e : th.event()) {
    TimelineLane::Event ev;
    ev.start_ns = e.start_ns();
    ev.end_ns = std::max(e.start_ns(), e.end_ns());
    const bool region = e.kind() == journal::kEventRegion;
    ev.kind = region ? "region" : "mpi";
    if (region) {
      ev.name = region_path(p, e.id());
    } else {
      const char* call = format::mpi_call_name(uint32_t(e.id()));
      ev.name = call ? call : "MPI call " + std::to_string(e.id());
    }
    lane.events.push_back(std::move(ev));
  }
}

// The events to list: the longest first, at most `top`.
std::vector<std::pair<const TimelineLane*, const TimelineLane::Event*>> longest_events(
    const Timeline& t, size_t top) {
  std::vector<std::pair<const TimelineLane*, const TimelineLane::Event*>> all;
  for (const TimelineLane& l : t.lanes)
    for (const TimelineLane::Event& e : l.events) all.emplace_back(&l, &e);
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second->end_ns - a.second->start_ns > b.second->end_ns - b.second->start_ns;
  });
  if (all.size() > top) all.resize(top);
  return all;
}

// The text view's letter of each kind (work has none: its share is the number).
constexpr char kKindLetters[kKinds] = {' ', 'b', 't', 'l', 'i', 'o', 'm', 'x', '-'};

}  // namespace

void add_to_timeline(Timeline& t, const format::Profile& p, const Model& m) {
  bool any = false;
  if (t.counter_events.empty())
    t.counter_events.assign(p.header.counter_event().begin(), p.header.counter_event().end());
  const bool off_cpu_is_work =
      omp::places_off_cpu_time(measurement_of(p.header), p.header.mpi_calls_exact());
  for (const auto& [index, th] : p.threads) {
    if (th.interval_ns() == 0) continue;
    any = true;
    if (th.mpi_library_thread()) continue;  // the MPI library's own thread, not the program's
    TimelineLane lane;
    lane.rank = p.header.mpi_size() > 0 ? int(p.header.mpi_rank()) : 0;
    lane.thread = index;
    lane.tid = th.tid();
    lane.is_main = th.is_main();
    lane.off_cpu_is_work = off_cpu_is_work;
    lane.start_unix_ns = p.header.start_time_unix_ns();
    lane.thread_start_ns = th.start_ns();
    // A thread still running when the profile was written ends with the run.
    lane.thread_end_ns = th.end_ns() ? th.end_ns() : p.header.duration_ns();
    lane.interval_ns = th.interval_ns();
    lane.now_state = th.now_state();
    lane.now_since_ns = th.now_since_ns();
    for (const v1::Interval& in : th.interval()) {
      if (in.index() >= lane.cells.size()) lane.cells.resize(in.index() + 1);
      TimelineLane::Cell& c = lane.cells[in.index()];
      for (int k = 0; k < in.class_ns_size() && size_t(k) < c.ns.size(); ++k)
        c.ns[size_t(k)] += double(in.class_ns(k));
      for (int k = 0; k < in.measured_ns_size() && size_t(k) < c.ns.size(); ++k)
        c.ns[size_t(k)] += double(in.measured_ns(k));
      c.samples += in.samples();
      c.measured_waits += in.measured_waits();
      for (int k = 0; k < in.counter_size() && size_t(k) < c.counters.size(); ++k)
        c.counters[size_t(k)] += double(in.counter(k));
      c.parallel_region = construct_name(m, in.fork_id());
      c.region = in.region_node() ? region_path(p, in.region_node()) : "";
      add_leads(c, m, index, in);
    }
    add_events(lane, p, th);
    t.lanes.push_back(std::move(lane));
  }
  if (!any) t.notes.push_back(p.path + ": no timeline (written by a collector before format 1.17)");
}

void finish_timeline(Timeline& t) {
  if (t.lanes.empty()) return;
  t.origin_unix_ns = t.lanes.front().start_unix_ns;
  for (const TimelineLane& l : t.lanes) {
    t.origin_unix_ns = std::min(t.origin_unix_ns, l.start_unix_ns);
    t.interval_ns = std::max(t.interval_ns, l.interval_ns);
  }
  uint64_t end_ns = 0;
  for (TimelineLane& l : t.lanes) {
    const uint64_t offset = lane_offset_ns(t, l);
    end_ns = std::max(end_ns, offset + l.thread_end_ns);
    regrid(l, offset, t.interval_ns);
  }
  // Every lane gets every interval: a lane may hold cells past the end its threads' times give
  // (a killed process's last thread), and the views read t.intervals cells of each.
  t.intervals = size_t((end_ns + t.interval_ns - 1) / t.interval_ns);
  for (const TimelineLane& l : t.lanes) t.intervals = std::max(t.intervals, l.cells.size());
  for (TimelineLane& l : t.lanes) l.cells.resize(t.intervals);
  std::stable_sort(t.lanes.begin(), t.lanes.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.thread < b.thread;
  });
}

double present_ns(const Timeline& t, const TimelineLane& lane, size_t i) {
  const uint64_t offset = lane_offset_ns(t, lane);
  const double from = std::max(double(i * t.interval_ns), double(offset + lane.thread_start_ns));
  const double to = std::min(double((i + 1) * t.interval_ns), double(offset + lane.thread_end_ns));
  return std::max(0.0, to - from);
}

double off_cpu_ns(const Timeline& t, const TimelineLane& lane, size_t i) {
  double covered = 0;
  for (double ns : lane.cells[i].ns) covered += ns;
  return std::max(0.0, present_ns(t, lane, i) - covered);
}

double work_ns(const Timeline& t, const TimelineLane& lane, size_t i) {
  return lane.cells[i].ns[timeline::kWork] + (lane.off_cpu_is_work ? off_cpu_ns(t, lane, i) : 0);
}

const char* kind_name(size_t kind) {
  return kind < kOffCpuKind ? timeline::kClassNames[kind] : "off_cpu";
}

size_t largest_kind(const Timeline& t, const TimelineLane& lane, size_t i, bool except_work) {
  const ClassNs& ns = lane.cells[i].ns;
  size_t top = except_work ? 1 : 0;
  for (size_t k = top + 1; k < ns.size(); ++k)
    if (ns[k] > ns[top]) top = k;
  return off_cpu_ns(t, lane, i) > ns[top] ? kOffCpuKind : top;
}

namespace {

// The longest explicit region instances and MPI calls, with their times.
void write_events_text(std::ostream& out, const Timeline& t) {
  uint64_t min_ns = 0, dropped = 0;
  for (const TimelineLane& l : t.lanes) {
    min_ns = std::max(min_ns, l.event_min_ns);
    dropped += l.events_dropped;
  }
  const auto events = longest_events(t, 20);
  if (events.empty()) return;
  out << fmt::format(
      "\nLongest explicit region instances and MPI calls (of those {:.0f} ms or longer{}):\n",
      double(min_ns) * 1e-6,
      dropped ? fmt::format("; {} shorter ones dropped when a thread's ring filled", dropped) : "");
  out << "  thread    start_s     end_s  length_s  kind    name\n";
  for (const auto& [l, e] : events)
    out << fmt::format("  {:>6} {:>10.3f} {:>9.3f} {:>9.3f}  {:<6}  {}\n",
                       fmt::format("r{}t{}", l->rank, l->thread), double(e->start_ns) * 1e-9,
                       double(e->end_ns) * 1e-9, double(e->end_ns - e->start_ns) * 1e-9, e->kind,
                       e->name);
}

}  // namespace

// One row per interval, one cell per thread: the share of its time it worked ("100" when all),
// then the letter of its largest other kind when that is at least 10% ('-': off the CPU), blank
// where the thread did not exist.
void write_timeline_text(std::ostream& out, const Timeline& t) {
  for (const std::string& n : t.notes) out << "note: " << n << "\n";
  if (t.lanes.empty()) return;
  out << fmt::format(
      "Timeline: {} intervals of {:.3f} s; per thread, % of its time working and the largest "
      "other kind (b barrier, t taskwait, l lock, i idle, o overhead, m mpi, x other, - off "
      "the CPU outside waits)\n",
      t.intervals, t.interval_ns * 1e-9);
  out << "  time_s";
  for (const TimelineLane& l : t.lanes)
    out << fmt::format(" {:>6}", fmt::format("r{}t{}", l.rank, l.thread));
  out << "\n";
  for (size_t i = 0; i < t.intervals; ++i) {
    out << fmt::format("{:8.3f}", double(i * t.interval_ns) * 1e-9);
    for (const TimelineLane& l : t.lanes) {
      const double present = present_ns(t, l, i);
      if (present <= 0) {
        out << "       ";
        continue;
      }
      const size_t top = largest_kind(t, l, i, true);
      const double top_ns = top == kOffCpuKind ? off_cpu_ns(t, l, i) : l.cells[i].ns[top];
      const char letter = top_ns >= 0.1 * present ? kKindLetters[top] : ' ';
      out << fmt::format(" {:>5.0f}{}", std::min(100.0, 100 * work_ns(t, l, i) / present), letter);
    }
    out << "\n";
  }
  write_events_text(out, t);
}

void write_timeline_csv(std::ostream& out, const Timeline& t) {
  out << "rank,thread,tid,start_s,end_s,samples";
  for (const char* name : timeline::kClassNames) out << "," << name << "_s";
  out << ",off_cpu_s,work_model_s,parallel_region,region\n";
  for (const TimelineLane& l : t.lanes)
    for (size_t i = 0; i < t.intervals; ++i) {
      if (present_ns(t, l, i) <= 0) continue;
      const TimelineLane::Cell& c = l.cells[i];
      out << fmt::format("{},{},{},{:.6f},{:.6f},{}", l.rank, l.thread, l.tid,
                         double(i * t.interval_ns) * 1e-9, double((i + 1) * t.interval_ns) * 1e-9,
                         c.samples);
      for (double ns : c.ns) out << fmt::format(",{:.6f}", ns * 1e-9);
      out << fmt::format(",{:.6f},{:.6f},{},{}\n", off_cpu_ns(t, l, i) * 1e-9,
                         work_ns(t, l, i) * 1e-9, text::csv_quote(c.parallel_region),
                         text::csv_quote(c.region));
    }
}

nlohmann::json timeline_json(const Timeline& t) {
  nlohmann::json j = {{"interval_s", t.interval_ns * 1e-9},
                      {"intervals", t.intervals},
                      {"counter_events", t.counter_events},
                      {"classes", timeline::kClassNames},
                      {"notes", t.notes},
                      {"threads", nlohmann::json::array()}};
  for (const TimelineLane& l : t.lanes) {
    nlohmann::json lane = {{"rank", l.rank},
                           {"thread", l.thread},
                           {"tid", l.tid},
                           {"is_main", l.is_main},
                           {"off_cpu_is_work", l.off_cpu_is_work},
                           {"class_s", nlohmann::json::array()},
                           {"off_cpu_s", nlohmann::json::array()},
                           {"work_model_s", nlohmann::json::array()},
                           {"measured_waits", nlohmann::json::array()},
                           {"samples", nlohmann::json::array()},
                           {"parallel_region", nlohmann::json::array()},
                           {"region", nlohmann::json::array()}};
    lane["event_min_s"] = double(l.event_min_ns) * 1e-9;
    lane["events_dropped"] = l.events_dropped;
    lane["events"] = nlohmann::json::array();
    for (const TimelineLane::Event& e : l.events)
      lane["events"].push_back({{"kind", e.kind},
                                {"name", e.name},
                                {"start_s", double(e.start_ns) * 1e-9},
                                {"end_s", double(e.end_ns) * 1e-9}});
    for (size_t i = 0; i < t.intervals; ++i) {
      const TimelineLane::Cell& c = l.cells[i];
      nlohmann::json row = nlohmann::json::array();
      for (double ns : c.ns) row.push_back(ns * 1e-9);
      lane["class_s"].push_back(row);
      lane["off_cpu_s"].push_back(off_cpu_ns(t, l, i) * 1e-9);
      lane["work_model_s"].push_back(work_ns(t, l, i) * 1e-9);
      lane["samples"].push_back(c.samples);
      lane["measured_waits"].push_back(c.measured_waits);
      if (!t.counter_events.empty()) {
        nlohmann::json counts = nlohmann::json::array();
        for (size_t k = 0; k < t.counter_events.size() && k < c.counters.size(); ++k)
          counts.push_back(c.counters[k]);
        lane["counters"].push_back(std::move(counts));
      }
      lane["parallel_region"].push_back(c.parallel_region);
      lane["region"].push_back(c.region);
    }
    j["threads"].push_back(lane);
  }
  return j;
}

nlohmann::json timeline_page_json(const Timeline& t, const std::vector<uint32_t>* page_node) {
  nlohmann::json lanes = nlohmann::json::array();
  for (const TimelineLane& l : t.lanes) {
    nlohmann::json us = nlohmann::json::array(), regions = nlohmann::json::array();
    // Per interval its samples, and its leads as [node, samples, wait (0 or 1)] triples, flat.
    nlohmann::json samples = nlohmann::json::array(), leads = nlohmann::json::array();
    std::string region = "\x01";  // no interval has it: the first one starts a run
    for (size_t i = 0; i < t.intervals; ++i) {
      const TimelineLane::Cell& c = l.cells[i];
      nlohmann::json row = nlohmann::json::array();
      for (double ns : c.ns) row.push_back(uint64_t(std::llround(ns * 1e-3)));
      row.push_back(uint64_t(std::llround(off_cpu_ns(t, l, i) * 1e-3)));
      us.push_back(std::move(row));
      samples.push_back(c.samples);
      nlohmann::json cell_leads = nlohmann::json::array();
      for (const TimelineLane::Cell::Lead& lead : c.leads)
        if (page_node && lead.node < page_node->size())
          cell_leads.insert(cell_leads.end(),
                            {(*page_node)[lead.node], lead.samples, lead.wait ? 1 : 0});
      leads.push_back(std::move(cell_leads));
      if (c.holds_data() && c.parallel_region != region) {
        region = c.parallel_region;
        regions.push_back({i, region});
      }
    }
    nlohmann::json events = nlohmann::json::array();  // [start_s, end_s, kind, name]
    for (const TimelineLane::Event& e : l.events)
      events.push_back({double(e.start_ns) * 1e-9, double(e.end_ns) * 1e-9, e.kind, e.name});
    lanes.push_back({{"label", fmt::format("r{}t{}", l.rank, l.thread)},
                     {"events", std::move(events)},
                     {"off_cpu_is_work", l.off_cpu_is_work},
                     {"us", std::move(us)},
                     {"samples", std::move(samples)},
                     {"leads", std::move(leads)},
                     {"parallel_regions", std::move(regions)}});
  }
  return {{"interval_s", t.interval_ns * 1e-9},
          {"classes", timeline::kClassNames},
          {"lanes", std::move(lanes)}};
}

}  // namespace omprof::viewer
