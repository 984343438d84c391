#include "viewer/call_views.h"

#include <fmt/format.h>

#include <algorithm>

#include "omp/user_model.h"
#include "proto/text.h"
#include "viewer/filter.h"

namespace omprof::viewer {

std::set<std::string> match_functions(const Model& m, const std::string& func) {
  std::set<std::string> names;
  for (const StackTotal& s : stack_totals(m))
    for (const auto& f : s.stack) names.insert(f.name);
  if (names.count(func)) return {func};
  // A C++ function by its name without parameters: "solve" for "solve(int, double)".
  std::set<std::string> by_short_name;
  for (const auto& n : names)
    if (n != func && omp::short_function_name(n) == func) by_short_name.insert(n);
  if (!by_short_name.empty()) return by_short_name;
  NamePattern re;
  std::string error;
  if (!re.compile(func, error))
    throw FilterError(
        fmt::format("'{}': neither a function's name nor a regular expression ({})", func, error));
  std::set<std::string> matched;
  for (const auto& n : names)
    if (re.found_in(n)) matched.insert(n);
  return matched;
}

bool CallTree::add(const Model& m) {
  const std::set<std::string> functions = match_functions(m, func_);
  if (functions.empty()) return false;
  functions_.insert(functions.begin(), functions.end());
  static const omp::Name root;  // the tree's single top node, named when the table is made
  std::vector<omp::Name> path;
  for (const StackTotal& s : stack_totals(m)) {
    size_t at = s.stack.size();
    if (callers_) {
      // The innermost call: its immediate caller first, then that one's, up to the root.
      for (size_t i = 0; i < s.stack.size(); ++i)
        if (functions.count(s.stack[i].name)) {
          at = i;
          break;
        }
    } else {
      // The outermost call: a recursive function's time counts once, its recursion below it.
      for (size_t i = s.stack.size(); i-- > 0;)
        if (functions.count(s.stack[i].name)) {
          at = i;
          break;
        }
    }
    if (at == s.stack.size()) continue;
    path.assign(1, root);
    if (callers_)
      for (size_t i = at + 1; i < s.stack.size(); ++i) path.push_back(s.stack[i].name);
    else
      for (size_t i = at; i-- > 0;) path.push_back(s.stack[i].name);
    tree_.add(path, s.work_ns, s.wait_ns);
  }
  return true;
}

std::string CallTree::title(double min_percent, const std::string& how) const {
  return fmt::format(
      "{} of {} (nodes >= {}% of total{}):", callers_ ? "Callers" : "Callees",
      functions_.size() == 1 ? *functions_.begin() : fmt::format("{} functions", functions_.size()),
      min_percent, how.empty() ? "" : "; " + how);
}

Table CallTree::table(double min_percent, uint64_t total_ns, Format format) const {
  if (functions_.empty())
    throw FilterError(fmt::format("{} '{}': no function of that name, or matching it",
                                  callers_ ? "--callers" : "--callees", func_));
  std::string label;
  for (const auto& f : functions_) label += (label.empty() ? "" : " | ") + f;
  if (functions_.size() > 1) label = "{" + label + "}";
  return tree_.table(min_percent, total_ns, format, callers_ ? "callers" : "callees", label);
}

// "file.c:42", else where the code is without a line table, else "(no line)"; "" for a
// pseudo-frame.
static std::string place_of(const omp::Frame& f) {
  if (!f.file.empty() && f.line > 0) return fmt::format("{}:{}", text::base_name(f.file), f.line);
  if (!f.code_place.empty()) return f.code_place;
  if (!f.pseudo) return "(no line)";  // no line table: the row stands for the function's lines
  return "";
}

void LineTotals::add(const Model& m) {
  std::vector<LineRow*> seen;  // this stack's rows: a line counts once per stack
  for (const StackTotal& s : stack_totals(m)) {
    seen.clear();
    for (size_t i = 0; i < s.stack.size(); ++i) {
      const omp::Frame& f = s.stack[i];
      std::string place = place_of(f);
      // A wait or overhead frame is where its caller entered the runtime: the barrier's, the
      // construct's or the lock call's line.
      if (place.empty() && f.pseudo && i + 1 < s.stack.size()) place = place_of(s.stack[i + 1]);
      LineRow& r = rows_[place + "\t" + f.name];
      if (r.function.empty()) {
        r.place = place;
        r.function = f.name;
      }
      if (i == 0) r.self += s.ns();
      if (std::find(seen.begin(), seen.end(), &r) != seen.end()) continue;
      seen.push_back(&r);
      r.total += s.ns();
      r.samples += s.samples;
      r.work += s.work_ns;
      r.wait += s.wait_ns;
    }
  }
}

std::vector<LineRow> LineTotals::rows(SortKey sort) const {
  std::vector<LineRow> sorted;
  for (const auto& [k, r] : rows_) sorted.push_back(r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [sort](const LineRow& a, const LineRow& b) { return heavier(a, b, sort); });
  return sorted;
}

Table LineTotals::table(uint64_t total_ns, size_t top, Format format, SortKey sort) const {
  Table t({"self_s", "self%", "total_s", "total%", "samples", "work_s", "wait_s", "<line",
           "<function"});
  const double all = double(total_ns);
  const std::vector<LineRow> sorted = rows(sort);
  for (size_t i = 0; i < sorted.size() && (top == 0 || i < top); ++i) {
    const LineRow& r = sorted[i];
    t.row({seconds(r.self), percent(r.self, all), seconds(r.total), percent(r.total, all),
           std::to_string(r.samples), seconds(r.work), seconds(r.wait),
           format == Format::kText ? fit(r.place, 28) : r.place, r.function});
  }
  return t;
}

}  // namespace omprof::viewer
