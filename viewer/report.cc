#include "viewer/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "omp/states.h"
#include "proto/coverage.h"
#include "proto/text.h"
#include "viewer/busy_machine.h"
#include "viewer/call_views.h"
#include "viewer/derived_cells.h"
#include "viewer/idle_blame.h"
#include "viewer/path_tree.h"
#include "viewer/regions_view.h"
#include "viewer/report_output.h"

namespace omprof::viewer {

namespace {

struct WorkWait {
  uint64_t work = 0, wait = 0;
  uint64_t overhead = 0;                  // the part of wait that is the runtime's bookkeeping
  Estimate work_estimate, wait_estimate;  // the same times, with their sampling error
  void add(uint32_t state, uint64_t w) { (omp::is_wait(state) ? wait : work) += w; }
  void add(const ViewSample& s) {
    add(s.state, s.weight_ns);
    if (omp::is_overhead(s.state)) overhead += s.weight_ns;
    (omp::is_wait(s.state) ? wait_estimate : work_estimate).add(s);
  }
  // One standard error of the wait share, in percentage points.
  std::string wait_error_percent() const {
    if (samples() == 0 && work + wait == 0) return "";
    return fmt::format("{:.1f}", 100.0 * share_error(wait_estimate, work_estimate));
  }
  uint64_t samples() const { return work_estimate.samples + wait_estimate.samples; }
  // A share from fewer than kFewSamples samples is rough: "~" before it in text.
  std::string share(uint64_t part, uint64_t whole, Format format) const {
    if (whole == 0) return format == Format::kText ? "n/a" : "";  // nothing measured: no share
    const bool rough = samples() < kFewSamples && format == Format::kText;
    return (rough ? "~" : "") + percent(double(part), double(whole));
  }
};

std::string error_seconds(const Estimate& e) {
  return fmt::format("{:.3f}", e.error_ns() * 1e-9);
}

std::string short_file(const std::string& f) {
  return text::base_name(f);
}

}  // namespace

std::unordered_map<omp::Name, FlatRow> flat_rows(const Model& m) {
  std::unordered_map<omp::Name, FlatRow> rows;
  std::vector<FlatRow*> seen;  // this stack's rows: a function counts once per stack
  for (const StackTotal& t : stack_totals(m)) {
    if (t.stack.empty()) continue;
    seen.clear();
    for (size_t i = 0; i < t.stack.size(); ++i) {
      const auto& f = t.stack[i];
      FlatRow& r = rows[f.name];
      if (r.name.empty()) {
        r.name = f.name;
        r.file = f.file;
      }
      if (i == 0) r.self += t.ns();
      if (i == 0)
        for (size_t c = 0; c < t.counters.size(); ++c) r.counters_self[c] += t.counters[c];
      if (std::find(seen.begin(), seen.end(), &r) != seen.end()) continue;
      seen.push_back(&r);
      for (size_t c = 0; c < t.counters.size(); ++c) r.counters_total[c] += t.counters[c];
      r.total += t.ns();
      r.total_estimate.ns += t.ns();
      r.total_estimate.samples += t.samples;
      r.total_estimate.var_ns2 += t.var_ns2;
      r.work += t.work_ns;
      r.wait += t.wait_ns;
    }
  }
  return rows;
}

Table flat_table(const Model& m, size_t top, Format format, SortKey sort) {
  using Row = FlatRow;
  std::vector<Row> sorted;
  for (auto& [k, r] : flat_rows(m)) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(), [sort](const Row& a, const Row& b) {
    return same_weight(a, b, sort) ? a.name < b.name : heavier(a, b, sort);
  });
  std::vector<std::string> columns = {"self_s",  "self%",  "total_s", "total%", "total_err_s",
                                      "samples", "work_s", "wait_s",  "<file",  "<function"};
  // Counter events (format 1.16): each event's count at the function and in it (total), before
  // the file (CSV: last).
  const auto& events = m.profile->header.counter_event();
  for (const std::string& e : events) {
    columns.insert(columns.end() - 2, e + "_self");
    columns.insert(columns.end() - 2, e);
  }
  // Metrics derived from the function's total counts and time, all sampled (derived_cells.h).
  const std::vector<std::string> event_names(events.begin(), events.end());
  const std::vector<std::string> derived = derived_columns(event_names);
  columns.insert(columns.end() - 2, derived.begin(), derived.end());
  Table t(columns);
  t.last_in_csv(4, 2);  // appended: the sampling error
  if (!events.empty()) t.last_in_csv(8, size_t(2 * events.size()) + derived.size());
  const double all = double(m.total_weight_ns);
  for (size_t i = 0; i < sorted.size() && (top == 0 || i < top); ++i) {
    const Row& r = sorted[i];
    std::vector<std::string> cells = {seconds(r.self),
                                      percent(r.self, all),
                                      seconds(r.total),
                                      percent(r.total, all),
                                      error_seconds(r.total_estimate),
                                      std::to_string(r.total_estimate.samples),
                                      seconds(r.work),
                                      seconds(r.wait)};
    RowCounts in;
    for (size_t e = 0; e < event_names.size() && e < r.counters_self.size(); ++e) {
      cells.push_back(std::to_string(r.counters_self[e]));
      cells.push_back(std::to_string(r.counters_total[e]));
      in.counts[e] = double(r.counters_total[e]);
    }
    in.thread_ns = double(r.total);
    in.samples = r.total_estimate.samples;
    derived_cells(event_names, in, cells);
    cells.push_back(format == Format::kText ? fit(short_file(r.file), 20) : short_file(r.file));
    cells.push_back(r.name);
    t.row(cells);
  }
  return t;
}

Table tree_table(const Model& m, double min_percent, Format format) {
  PathTree tree;
  std::vector<omp::Name> path;
  for (const StackTotal& t : stack_totals(m)) {
    path.clear();
    for (size_t i = t.stack.size(); i-- > 0;) path.push_back(t.stack[i].name);
    tree.add(path, t.work_ns, t.wait_ns, t.idle_blame_ns);
  }
  return tree.table(min_percent, m.total_weight_ns, format);
}

Table thread_table(const Model& m, Format format) {
  const format::Profile& p = *m.profile;
  std::map<uint32_t, std::pair<uint64_t, WorkWait>> per;
  for (const auto& s : m.samples) {
    per[s.thread].first += s.count;
    per[s.thread].second.add(s);
  }
  const bool machine_known = p.header.cpus_online() > 0;  // format 1.14, not recovered
  const std::string unknown = unknown_cell(format);
  std::vector<std::string> columns = {
      "thread",    "tid",    "samples",   "sampled_s",  "cpu_s",     "work_s",
      "wait_s",    "wait%",  "wait_err%", "overhead_s", "overhead%", "dropped",
      "truncated", "runq_s", "invol_sw",  "<cpus",      "<kind"};
  // Counter events (1.16): each thread's whole count, before its CPUs and kind (CSV: last).
  const auto& events = p.header.counter_event();
  for (const std::string& e : events) columns.insert(columns.end() - 2, e);
  Table t(columns);
  t.last_in_csv(8, 3);   // appended: the sampling error, then the overhead part of wait
  t.last_in_csv(13, 3);  // then the time waiting for a CPU, involuntary switches, CPUs (1.14)
  if (!events.empty()) t.last_in_csv(15, size_t(events.size()));
  for (const auto& [index, th] : p.threads) {
    const auto& agg = per[index];
    if (m.filtered && agg.second.work + agg.second.wait == 0) continue;  // filtered out
    const uint64_t sampled = agg.second.work + agg.second.wait;
    std::string kind = th.is_main() ? "main" : th.mpi_library_thread() ? "mpi-library" : "thread";
    if (th.is_omp_thread()) kind += ",openmp";
    if (th.timer_failed()) kind += fmt::format(",no-timer(errno {})", th.timer_errno());
    std::vector<std::string> cells = {
        std::to_string(index),
        std::to_string(th.tid()),
        std::to_string(agg.first),
        seconds(sampled),
        seconds(th.cpu_time_ns()),
        seconds(agg.second.work),
        seconds(agg.second.wait),
        agg.second.share(agg.second.wait, sampled, format),
        agg.second.wait_error_percent(),
        seconds(agg.second.overhead),
        agg.second.share(agg.second.overhead, sampled, format),
        std::to_string(th.dropped_samples()),
        std::to_string(th.truncated_samples()),
        machine_known ? seconds(th.run_delay_ns()) : unknown,
        machine_known ? std::to_string(th.involuntary_switches()) : unknown};
    for (int e = 0; e < events.size(); ++e)  // none when its counters could not be opened
      cells.push_back(e < th.counter_total_size() ? std::to_string(th.counter_total(e)) : unknown);
    cells.push_back(th.cpus().empty() ? unknown : th.cpus());
    cells.push_back(kind);
    t.row(cells);
  }
  return t;
}

Table state_table(const Model& m, Format format) {
  // state name -> (is wait, thread (-1 = all) -> ns)
  std::map<std::string, std::pair<bool, std::map<int64_t, uint64_t>>> per;
  std::map<std::string, std::string> frame_of;  // the pseudo-frame the views show the state as
  std::map<int64_t, uint64_t> thread_total;
  for (const auto& s : m.samples) {
    const omp::StateInfo info = omp::describe_state(s.state);
    auto& entry = per[info.name];
    if (info.pseudo_frame) frame_of[info.name] = info.pseudo_frame;
    entry.first = omp::is_wait(s.state);
    entry.second[-1] += s.weight_ns;
    entry.second[s.thread] += s.weight_ns;
    thread_total[-1] += s.weight_ns;
    thread_total[s.thread] += s.weight_ns;
  }
  // frame: the name the call tree and flat views give the state (<omp:region-end-barrier>).
  Table t({"<state", "<class", "<thread", "time_s", "pct", "<frame"});
  constexpr uint64_t kPrintsAsZero = 500000;
  for (const auto& [name, entry] : per)
    for (const auto& [thread, ns] : entry.second) {
      if (format == Format::kText && ns < kPrintsAsZero) continue;
      t.row({name, entry.first ? "wait" : "work", thread < 0 ? "all" : std::to_string(thread),
             seconds(ns), percent(ns, thread_total[thread]), frame_of[name]});
    }
  return t;
}

namespace {
// A construct's fork-to-join wall time, "-" in text where the profile does not have it (before
// format 1.14, a recovered profile).
std::string wall_seconds(uint64_t ns, Format format) {
  return ns ? seconds(ns) : unknown_cell(format);
}

// A parallel construct: its fork records merged by source location, so that the call paths of
// one construct count together.
struct ParallelRegion {
  std::string function, place;
  uint64_t instances = 0, incl = 0;
  uint64_t wall = 0;  // fork to join on the encountering thread (format 1.14; 0: unknown)
  std::set<uint32_t> teams;
  WorkWait ww;
  std::map<std::string, uint64_t> wait_by_kind;
  // Counter events its members' samples took inside it (format 1.16), Header.counter_event order,
  // and with Header.region_counters_exact those its members counted (ForkRecord.counter, 1.19).
  std::array<uint64_t, counters::kMaxCounters> counters{}, exact{};
};

// By "function@file:line+code_place".
std::map<std::string, ParallelRegion> parallel_regions_of(const Model& m) {
  const format::Profile& p = *m.profile;
  std::map<std::string, ParallelRegion> constructs;
  std::vector<ParallelRegion*> by_fork(p.forks.size() + 1, nullptr);  // fork id -> construct
  ProfileFrames frames(p);
  // The user's function of a construct: a construct nested in another one's body is inside
  // the compiler's outlined function (.omp_outlined._debug__, main._omp_fn.0), which in the
  // user model is the enclosing construct's function, and so on outwards.
  auto user_function = [&](const v1::ForkRecord& f) {
    std::string name = construct_frame(frames, f).name;
    for (uint64_t parent = f.parent_id(), hops = 0;
         omp::is_outlined_name(name) && parent && parent <= p.forks.size() && hops < 64; ++hops) {
      name = construct_frame(frames, p.forks[parent - 1]).name;
      parent = p.forks[parent - 1].parent_id();
    }
    return name;
  };
  for (const auto& f : p.forks) {
    if (f.task()) continue;  // a task construct's creation path, not a region
    omp::Frame c = construct_frame(frames, f);
    // Without a line table the offset in the function tells constructs apart.
    std::string key = fmt::format("{}@{}:{}+{}", c.name, c.file, c.line, c.code_place);
    ParallelRegion& r = constructs[key];
    r.function = user_function(f);
    r.place =
        c.file.empty() ? omp::construct_place(c) : fmt::format("{}:{}", short_file(c.file), c.line);
    if (r.place.empty()) r.place = "?";
    r.instances += f.instances();
    r.wall += f.wall_ns();
    for (int c = 0; c < f.counter_size() && size_t(c) < r.exact.size(); ++c)
      r.exact[size_t(c)] += f.counter(c);
    for (uint32_t s : f.team_sizes()) r.teams.insert(s);
    if (f.id() < by_fork.size()) by_fork[f.id()] = &r;
  }
  std::vector<const ParallelRegion*> seen;  // a sample counts once per construct
  for (const auto& s : m.samples) {
    seen.clear();
    for (uint64_t id = s.fork_id, hops = 0; id && id < by_fork.size() && hops < 64; ++hops) {
      ParallelRegion* r = by_fork[id];
      if (r && std::find(seen.begin(), seen.end(), r) == seen.end()) {
        seen.push_back(r);
        r->incl += s.weight_ns;
        r->ww.add(s);
        for (size_t c = 0; c < s.counters.size(); ++c) r->counters[c] += s.counters[c];
        if (omp::is_wait(s.state))
          r->wait_by_kind[omp::describe_state(s.state).pseudo_frame] += s.weight_ns;
      }
      id = p.forks[id - 1].parent_id();
    }
  }
  return constructs;
}
}  // namespace

std::map<std::string, ParallelRegionTotals> parallel_region_totals(const Model& m) {
  std::map<std::string, ParallelRegionTotals> out;
  for (const auto& [key, r] : parallel_regions_of(m)) {
    ParallelRegionTotals& t = out[fmt::format("{} @ {}", r.function, r.place)];
    t.function = r.function;
    t.place = r.place;
    t.instances += r.instances;
    t.wall += r.wall;
    t.incl += r.incl;
    t.work += r.ww.work;
    t.wait += r.ww.wait;
  }
  return out;
}

namespace {
// A construct's counter cells: sampled, exact (`exact`: --region-counters), derived: from the
// members' exact counts where read, per second of the team's sampled time in the construct.
void counter_cells(const ParallelRegion& r, const std::vector<std::string>& events, bool exact,
                   std::vector<std::string>& cells) {
  for (size_t e = 0; e < events.size() && e < r.counters.size(); ++e)
    cells.push_back(std::to_string(r.counters[e]));
  if (exact)
    for (size_t e = 0; e < events.size() && e < r.exact.size(); ++e)
      cells.push_back(std::to_string(r.exact[e]));
  RowCounts in;
  for (size_t e = 0; e < in.counts.size(); ++e)
    in.counts[e] = double(exact ? r.exact[e] : r.counters[e]);
  in.counts_exact = exact;
  in.thread_ns = double(r.incl);
  in.samples = r.ww.samples();
  derived_cells(events, in, cells);
}
}  // namespace

Table parallel_region_table(const Model& m, Format format) {
  const std::map<std::string, ParallelRegion> constructs = parallel_regions_of(m);
  std::vector<std::string> columns = {
      "<region",     "instances", "wall_s",  "<teams",     "incl_s",    "work_s", "wait_s",
      "efficiency%", "eff_err%",  "samples", "overhead_s", "barrier_s", "lock_s", "other_wait_s"};
  // Counter events (1.16): what the team's samples took inside each construct.
  const auto& events = m.profile->header.counter_event();
  columns.insert(columns.end(), events.begin(), events.end());
  // The members' exact counts (--region-counters, 1.19), beside the sampled ones.
  const bool exact = m.profile->header.region_counters_exact();
  if (exact)
    for (const std::string& e : events) columns.push_back(e + "_exact");
  const std::vector<std::string> event_names(events.begin(), events.end());
  const std::vector<std::string> derived = derived_columns(event_names);
  columns.insert(columns.end(), derived.begin(), derived.end());
  columns.push_back("<function");
  Table t(columns);
  t.last_in_csv(8, 3);  // appended: the sampling error, then the overhead part of wait
  t.last_in_csv(2, 1);  // then the wall time (format 1.14)
  if (!events.empty()) t.last_in_csv(14, size_t(events.size()) * (exact ? 2 : 1) + derived.size());
  std::vector<std::pair<std::string, ParallelRegion>> sorted(constructs.begin(), constructs.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.incl > b.second.incl; });
  for (const auto& [key, r] : sorted) {
    std::string teams;
    for (uint32_t s : r.teams) teams += (teams.empty() ? "" : " ") + std::to_string(s);
    uint64_t barrier = 0, lock = 0, other = 0;
    for (const auto& [kind, ns] : r.wait_by_kind) {
      if (kind.find("overhead") != std::string::npos) continue;  // its own column
      if (kind.find("barrier") != std::string::npos)
        barrier += ns;
      else if (kind.find("lock") != std::string::npos)
        lock += ns;
      else
        other += ns;
    }
    std::vector<std::string> cells = {r.place,
                                      std::to_string(r.instances),
                                      wall_seconds(r.wall, format),
                                      teams,
                                      seconds(r.incl),
                                      seconds(r.ww.work),
                                      seconds(r.ww.wait),
                                      r.ww.share(r.ww.work, r.ww.work + r.ww.wait, format),
                                      r.ww.wait_error_percent(),
                                      std::to_string(r.ww.samples()),
                                      seconds(r.ww.overhead),
                                      seconds(barrier),
                                      seconds(lock),
                                      seconds(other)};
    counter_cells(r, event_names, exact, cells);
    cells.push_back(r.function);
    t.row(cells);
  }
  return t;
}

size_t rough_parallel_regions(const Model& m, size_t* all) {
  size_t rough = 0;
  *all = 0;
  for (const auto& [key, r] : parallel_regions_of(m)) {
    ++*all;
    rough += r.ww.samples() < kFewSamples;
  }
  return rough;
}

}  // namespace omprof::viewer
