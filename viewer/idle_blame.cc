#include "viewer/idle_blame.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "omp/states.h"

namespace omprof::viewer {

IdleTotals idle_totals(const Model& m) {
  IdleTotals t;
  for (const ViewSample& s : m.samples) {
    if (omp::is_idle(s.state)) t.idle_ns += s.weight_ns;
    t.blamed_ns += s.idle_blame_ns;
  }
  return t;
}

namespace {
struct BlameRow {
  uint64_t incl = 0, self = 0;
  const StackRef* heaviest = nullptr;  // the stack through the function with the most blame
  uint64_t heaviest_ns = 0;
  size_t depth = 0;  // the function's position in that stack (leaf first)
};

std::string path_to(const StackRef& stack, size_t depth) {
  std::string out;
  for (size_t i = stack.size(); i-- > depth;)
    out += (out.empty() ? "" : " > ") + stack[i].name.str();
  return out;
}
}  // namespace

Table idle_blame_table(const Model& m, size_t top) {
  std::vector<StackTotal> totals = stack_totals(m);
  std::unordered_map<omp::Name, BlameRow> rows;
  std::vector<const omp::Name*> seen;  // a function counts once per stack
  for (const StackTotal& t : totals) {
    if (t.idle_blame_ns == 0 || t.stack.empty()) continue;
    seen.clear();
    for (size_t i = 0; i < t.stack.size(); ++i) {
      const omp::Name& name = t.stack[i].name;
      BlameRow& r = rows[name];
      if (i == 0) r.self += t.idle_blame_ns;
      if (std::find(seen.begin(), seen.end(), &name) != seen.end()) continue;
      seen.push_back(&name);
      r.incl += t.idle_blame_ns;
      if (t.idle_blame_ns > r.heaviest_ns) {
        r.heaviest_ns = t.idle_blame_ns;
        r.heaviest = &t.stack;
        r.depth = i;
      }
    }
  }
  std::vector<std::pair<omp::Name, BlameRow>> sorted(rows.begin(), rows.end());
  // The serial code itself first (self), each with its call path: one row says what costs the
  // workers their time; its callers follow.
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.second.self != b.second.self) return a.second.self > b.second.self;
    if (a.second.incl != b.second.incl) return a.second.incl > b.second.incl;
    return a.first < b.first;
  });
  const IdleTotals all = idle_totals(m);
  Table table({"idle_s", "idle%", "self_idle_s", "<function", "<path"});
  for (size_t i = 0; i < sorted.size() && (top == 0 || i < top); ++i) {
    const auto& [name, r] = sorted[i];
    table.row({seconds(r.incl), percent(double(r.incl), double(all.idle_ns)), seconds(r.self),
               name.str(), r.heaviest ? path_to(*r.heaviest, r.depth) : ""});
  }
  return table;
}

}  // namespace omprof::viewer
