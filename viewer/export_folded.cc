// Folded stacks, one line per distinct stack: "root;caller;leaf VALUE" with VALUE the time in
// nanoseconds (flamegraph.pl, speedscope, inferno). Lines are sorted, so outputs diff.
#include <map>

#include "viewer/export.h"

namespace omprof::viewer {

namespace {

// ';' separates frames and the last space the value; names keep everything else.
std::string folded_name(std::string s) {
  for (char& c : s)
    if (c == ';')
      c = ':';
    else if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

class FoldedExporter : public Exporter {
 public:
  explicit FoldedExporter(bool state_leaf) : state_leaf_(state_leaf) {}

  void add(const format::Profile& p, const Model& m) override {
    for (const ViewSample& s : m.samples) {
      if (!s.weight_ns) continue;
      std::string line;
      for (auto f = s.stack.rbegin(); f != s.stack.rend(); ++f) {
        if (!line.empty()) line += ';';
        line += folded_name(f->name);
      }
      if (state_leaf_) {
        if (!line.empty()) line += ';';
        line += folded_name(state_leaf_name(labels_of(p, s)));
      }
      if (line.empty()) line = "[no stack]";
      totals_[line] += s.weight_ns;
    }
  }

  void write(std::ostream& out) override {
    for (const auto& [stack, ns] : totals_) out << stack << ' ' << ns << '\n';
  }

 private:
  bool state_leaf_;
  std::map<std::string, uint64_t> totals_;
};

}  // namespace

std::unique_ptr<Exporter> make_folded_exporter(bool state_leaf) {
  return std::make_unique<FoldedExporter>(state_leaf);
}

}  // namespace omprof::viewer
