// speedscope's file format (https://www.speedscope.app/file-format-schema.json): shared frames
// and one "sampled" profile per rank and thread, its identical stacks merged, weights in
// nanoseconds. speedscope shows each thread's time as a left-heavy flame graph and a sandwich.
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "viewer/export.h"
#include "viewer/json_text.h"

namespace omprof::viewer {

namespace {

using nlohmann::json;

class SpeedscopeExporter : public Exporter {
 public:
  explicit SpeedscopeExporter(bool state_leaf) : state_leaf_(state_leaf) {}

  void add(const format::Profile& p, const Model& m) override {
    if (name_.empty()) name_ = p.header.program();
    for (const ViewSample& s : m.samples) {
      if (!s.weight_ns) continue;
      const SampleLabels l = labels_of(p, s);
      Thread& t = threads_[{l.rank, l.thread}];
      t.tid = l.tid;
      std::vector<uint32_t> stack;
      for (auto f = s.stack.rbegin(); f != s.stack.rend(); ++f)
        stack.push_back(frame(f->name, f->file, f->line));
      if (state_leaf_) stack.push_back(frame(state_leaf_name(l), "", 0));
      t.weights[stack] += s.weight_ns;
    }
  }

  void write(std::ostream& out) override {
    json profiles = json::array();
    for (const auto& [key, t] : threads_) {
      const auto& [rank, thread] = key;
      std::string name =
          "thread " + std::to_string(thread) + " (tid " + std::to_string(t.tid) + ")";
      if (rank >= 0) name = "rank " + std::to_string(rank) + " " + name;
      json samples = json::array(), weights = json::array();
      uint64_t total = 0;
      for (const auto& [stack, ns] : t.weights) {
        samples.push_back(stack);
        weights.push_back(ns);
        total += ns;
      }
      profiles.push_back({{"type", "sampled"},
                          {"name", name},
                          {"unit", "nanoseconds"},
                          {"startValue", 0},
                          {"endValue", total},
                          {"samples", std::move(samples)},
                          {"weights", std::move(weights)}});
    }
    const json doc = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                      {"shared", {{"frames", frames_}}},
                      {"profiles", std::move(profiles)},
                      // Aggregated stacks: speedscope's "Time Order" view shows an order
                      // the profile does not have (the timeline is export --format perfetto).
                      {"name", name_ + " (aggregated stacks, not in time order)"},
                      {"activeProfileIndex", 0},
                      {"exporter", std::string("omprof ") + OMPROF_VERSION}};
    // Names come from binaries: replace invalid UTF-8 rather than fail.
    out << json_text(doc) << '\n';
  }

 private:
  struct Thread {
    uint64_t tid = 0;
    std::map<std::vector<uint32_t>, uint64_t> weights;  // root-first frame indices
  };

  uint32_t frame(const std::string& name, const std::string& file, int64_t line) {
    auto [it, added] = frame_ids_.emplace(std::make_tuple(name, file, line), frames_.size());
    if (added) {
      json f = {{"name", name}};
      if (!file.empty()) f["file"] = file;
      if (line > 0) f["line"] = line;
      frames_.push_back(std::move(f));
    }
    return uint32_t(it->second);
  }

  bool state_leaf_;
  std::string name_;
  json frames_ = json::array();
  std::map<std::tuple<std::string, std::string, int64_t>, size_t> frame_ids_;
  std::map<std::pair<int64_t, uint32_t>, Thread> threads_;
};

}  // namespace

std::unique_ptr<Exporter> make_speedscope_exporter(bool state_leaf) {
  return std::make_unique<SpeedscopeExporter>(state_leaf);
}

}  // namespace omprof::viewer
