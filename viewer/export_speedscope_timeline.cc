// `omprof export --format speedscope-timeline`: the timeline (viewer/timeline.h) in speedscope's
// "evented" profile type (https://www.speedscope.app/file-format-schema.json), which speedscope
// shows in time order. Per rank and thread two profiles: its states, one frame per run of
// intervals with the same dominant kind (largest_kind: work, a wait class, off_cpu), opened and
// closed at the runs' edges; and its long explicit region instances and MPI calls
// (TimelineLane::events) at their exact times, nested as they were on the thread. Times in
// nanoseconds from the earliest rank's start.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "viewer/export.h"
#include "viewer/json_text.h"
#include "viewer/timeline.h"

namespace omprof::viewer {

namespace {

using nlohmann::json;

class SpeedscopeTimelineExporter : public Exporter {
 public:
  void add(const format::Profile& p, const Model& m) override {
    if (name_.empty()) name_ = p.header.program();
    add_to_timeline(t_, p, m);
  }

  void write(std::ostream& out) override {
    finish_timeline(t_);
    json profiles = json::array();
    for (const TimelineLane& l : t_.lanes) {
      const std::string who = "rank " + std::to_string(l.rank) + " thread " +
                              std::to_string(l.thread) + " (tid " + std::to_string(l.tid) + ")";
      profiles.push_back(states_profile(l, who + ": states"));
      if (!l.events.empty()) profiles.push_back(events_profile(l, who + ": regions and MPI calls"));
    }
    const json doc = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                      {"shared", {{"frames", frames_}}},
                      {"profiles", std::move(profiles)},
                      {"name", name_ + " (timeline)"},
                      {"activeProfileIndex", 0},
                      {"exporter", std::string("omprof ") + OMPROF_VERSION}};
    out << json_text(doc) << '\n';
  }

 private:
  uint32_t frame(const std::string& name) {
    auto [it, added] = frame_ids_.emplace(name, uint32_t(frames_.size()));
    if (added) frames_.push_back({{"name", name}});
    return it->second;
  }

  static json event(const char* type, uint32_t frame, uint64_t at_ns) {
    return {{"type", type}, {"frame", frame}, {"at", at_ns}};
  }

  static json profile(const std::string& name, json events, uint64_t end_ns) {
    return {{"type", "evented"}, {"name", name},       {"unit", "nanoseconds"},
            {"startValue", 0},   {"endValue", end_ns}, {"events", std::move(events)}};
  }

  // Runs of intervals with the same dominant kind, each an open and a close.
  json states_profile(const TimelineLane& l, const std::string& name) {
    json events = json::array();
    std::string open;
    uint32_t open_frame = 0;
    uint64_t end_ns = 0;
    for (size_t i = 0; i <= t_.intervals; ++i) {
      const bool present = i < t_.intervals && present_ns(t_, l, i) > 0;
      const std::string kind = present ? kind_name(largest_kind(t_, l, i, false)) : "";
      if (kind == open) continue;
      const uint64_t at = uint64_t(i) * t_.interval_ns;
      if (!open.empty()) events.push_back(event("C", open_frame, at)), end_ns = at;
      open = kind;
      if (!open.empty()) {
        open_frame = frame(open);
        events.push_back(event("O", open_frame, at));
      }
    }
    return profile(name, std::move(events), end_ns);
  }

  // The thread's events in time order, each an open and a close; an event that does not nest
  // in the one open around it (repaired region mismatches) is clipped to it.
  json events_profile(const TimelineLane& l, const std::string& name) {
    std::vector<const TimelineLane::Event*> order;
    for (const TimelineLane::Event& e : l.events) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
    });
    json events = json::array();
    std::vector<std::pair<uint32_t, uint64_t>> stack;  // open frames and their ends
    uint64_t end_ns = 0;
    auto close_until = [&](uint64_t at) {
      while (!stack.empty() && stack.back().second <= at) {
        events.push_back(event("C", stack.back().first, stack.back().second));
        end_ns = std::max(end_ns, stack.back().second);
        stack.pop_back();
      }
    };
    for (const TimelineLane::Event* e : order) {
      close_until(e->start_ns);
      const uint64_t end = stack.empty() ? e->end_ns : std::min(e->end_ns, stack.back().second);
      const uint32_t f = frame((e->kind == "mpi" ? "" : "region ") + e->name);
      events.push_back(event("O", f, e->start_ns));
      stack.emplace_back(f, end);
    }
    close_until(~uint64_t(0));
    return profile(name, std::move(events), end_ns);
  }

  Timeline t_;
  std::string name_;
  json frames_ = json::array();
  std::map<std::string, uint32_t> frame_ids_;
};

}  // namespace

std::unique_ptr<Exporter> make_speedscope_timeline_exporter() {
  return std::make_unique<SpeedscopeTimelineExporter>();
}

}  // namespace omprof::viewer
