// `omprof export --format perfetto`: the timeline (viewer/timeline.h) as Chrome trace-event JSON,
// which Perfetto's UI (ui.perfetto.dev) and chrome://tracing open: a process per rank, a track
// per thread, and on it one slice per run of intervals with the same dominant class (its name),
// with each class's share, the parallel region and the explicit region in its arguments; and
// per thread a counter track of the share of each interval it worked. Slices are named by the
// kind of time that dominates (viewer/timeline.h largest_kind); and per thread a track of its
// long explicit region instances and MPI calls at their exact times.
#include <cmath>
#include <nlohmann/json.hpp>

#include "proto/timeline.h"
#include "viewer/export.h"
#include "viewer/json_text.h"
#include "viewer/timeline.h"

namespace omprof::viewer {

namespace {

// The event track's tid: the thread's index plus this.
constexpr uint64_t kEventTrack = 1000000;

// The kind with the most time in a cell; "" for a cell where the thread did not exist.
std::string dominant(const Timeline& t, const TimelineLane& l, size_t i) {
  return present_ns(t, l, i) > 0 ? kind_name(largest_kind(t, l, i, false)) : "";
}

nlohmann::json slice(const Timeline& t, const TimelineLane& l, size_t from, size_t to,
                     const std::string& name) {
  nlohmann::json args = nlohmann::json::object();
  ClassNs sum{};
  double present = 0, off_cpu = 0;
  for (size_t i = from; i < to; ++i) {
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += l.cells[i].ns[k];
    present += present_ns(t, l, i);
    off_cpu += off_cpu_ns(t, l, i);
  }
  for (size_t k = 0; k < sum.size(); ++k)
    if (sum[k] > 0) args[std::string(kind_name(k)) + "%"] = 100 * sum[k] / present;
  if (off_cpu > 0) args[std::string(kind_name(kOffCpuKind)) + "%"] = 100 * off_cpu / present;
  args["parallel_region"] = l.cells[to - 1].parallel_region;
  args["region"] = l.cells[to - 1].region;
  const double us = double(t.interval_ns) * 1e-3;
  return {{"name", name},
          {"cat", "state"},
          {"ph", "X"},
          {"pid", l.rank},
          {"tid", l.thread},
          {"ts", double(from) * us},
          {"dur", double(to - from) * us},
          {"args", args}};
}

// A second track per thread, "thread N regions and MPI calls": its long explicit region
// instances and MPI calls as slices at their exact times (they nest as the calls did).
void add_event_track(nlohmann::json& events, const TimelineLane& l) {
  if (l.events.empty()) return;
  const uint64_t tid = kEventTrack + l.thread;
  events.push_back(
      {{"name", "thread_name"},
       {"ph", "M"},
       {"pid", l.rank},
       {"tid", tid},
       {"args", {{"name", "thread " + std::to_string(l.thread) + " regions and MPI calls"}}}});
  for (const TimelineLane::Event& e : l.events)
    events.push_back({{"name", e.name},
                      {"cat", e.kind},
                      {"ph", "X"},
                      {"pid", l.rank},
                      {"tid", tid},
                      {"ts", double(e.start_ns) * 1e-3},
                      {"dur", double(e.end_ns - e.start_ns) * 1e-3}});
}

// Per thread and counter event, a counter track of its rate in each interval (events a second).
void add_counter_tracks(nlohmann::json& events, const Timeline& t, const TimelineLane& l) {
  for (size_t k = 0; k < t.counter_events.size() && k < journal::kMaxCounters; ++k)
    for (size_t i = 0; i < t.intervals; ++i) {
      if (present_ns(t, l, i) <= 0) continue;
      events.push_back(
          {{"name", "thread " + std::to_string(l.thread) + " " + t.counter_events[k] + " /s"},
           {"ph", "C"},
           {"pid", l.rank},
           {"ts", double(i) * double(t.interval_ns) * 1e-3},
           {"args",
            {{t.counter_events[k], l.cells[i].counters[k] / (double(t.interval_ns) * 1e-9)}}}});
    }
}

class PerfettoExporter : public Exporter {
 public:
  void add(const format::Profile& p, const Model& m) override { add_to_timeline(t_, p, m); }

  void write(std::ostream& out) override {
    finish_timeline(t_);
    nlohmann::json events = nlohmann::json::array();
    std::set<int> ranks;
    for (const TimelineLane& l : t_.lanes) {
      if (ranks.insert(l.rank).second)
        events.push_back({{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", l.rank},
                          {"args", {{"name", "rank " + std::to_string(l.rank)}}}});
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", l.rank},
                        {"tid", l.thread},
                        {"args",
                         {{"name", "thread " + std::to_string(l.thread) + " (tid " +
                                       std::to_string(l.tid) + ")"}}}});
      // A counter track per thread: its share of each interval spent working (as the model
      // counts work: off the CPU outside waits included where the profile says so).
      for (size_t i = 0; i < t_.intervals; ++i) {
        const double present = present_ns(t_, l, i);
        if (present <= 0) continue;
        events.push_back({{"name", "thread " + std::to_string(l.thread) + " work %"},
                          {"ph", "C"},
                          {"pid", l.rank},
                          {"ts", double(i) * double(t_.interval_ns) * 1e-3},
                          {"args", {{"work", 100 * work_ns(t_, l, i) / present}}}});
      }
      add_event_track(events, l);
      add_counter_tracks(events, t_, l);
      size_t from = 0;
      std::string name;
      for (size_t i = 0; i <= t_.intervals; ++i) {
        const std::string d = i < t_.intervals ? dominant(t_, l, i) : "";
        if (d == name) continue;
        if (!name.empty()) events.push_back(slice(t_, l, from, i, name));
        from = i;
        name = d;
      }
    }
    nlohmann::json doc = {
        {"traceEvents", events},
        {"displayTimeUnit", "ms"},
        {"otherData", {{"interval_s", t_.interval_ns * 1e-9}, {"notes", t_.notes}}}};
    out << json_text(doc) << "\n";
  }

 private:
  Timeline t_;
};

}  // namespace

std::unique_ptr<Exporter> make_perfetto_exporter() {
  return std::make_unique<PerfettoExporter>();
}

}  // namespace omprof::viewer
