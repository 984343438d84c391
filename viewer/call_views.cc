#include "viewer/call_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

#include "omp/states.h"
#include "proto/text.h"
#include "viewer/filter.h"
#include "viewer/path_tree.h"

namespace omprof::viewer {

std::set<std::string> match_functions(const Model& m, const std::string& func) {
  std::set<std::string> names;
  for (const auto& s : m.samples)
    for (const auto& f : s.stack) names.insert(f.name);
  if (names.count(func)) return {func};
  std::regex re;
  try {
    re = std::regex(func, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw FilterError(fmt::format("'{}': neither a function's name nor a regular expression ({})",
                                  func, e.what()));
  }
  std::set<std::string> matched;
  for (const auto& n : names)
    if (std::regex_search(n, re)) matched.insert(n);
  return matched;
}

namespace {

std::string root_label(const std::set<std::string>& functions) {
  if (functions.size() == 1) return *functions.begin();
  std::string label;
  for (const auto& f : functions) label += (label.empty() ? "" : " | ") + f;
  return "{" + label + "}";
}

}  // namespace

Table callees_table(const Model& m, const std::set<std::string>& functions, double min_percent,
                    Format format) {
  PathTree tree(root_label(functions));
  std::vector<const std::string*> path;
  const std::string root = root_label(functions);
  for (const StackTotal& s : stack_totals(m)) {
    // The outermost call: a recursive function's time is counted once, its recursion below it.
    size_t at = s.stack.size();
    for (size_t i = s.stack.size(); i-- > 0;)
      if (functions.count(s.stack[i].name)) {
        at = i;
        break;
      }
    if (at == s.stack.size()) continue;
    path.assign(1, &root);
    for (size_t i = at; i-- > 0;) path.push_back(&s.stack[i].name);
    tree.add(path, s.work_ns, s.wait_ns);
  }
  return tree.table(min_percent, m.total_weight_ns, format, "callees");
}

Table callers_table(const Model& m, const std::set<std::string>& functions, double min_percent,
                    Format format) {
  PathTree tree(root_label(functions));
  std::vector<const std::string*> path;
  const std::string root = root_label(functions);
  for (const StackTotal& s : stack_totals(m)) {
    // The innermost call: its immediate caller first, then that one's, up to the thread's root.
    size_t at = s.stack.size();
    for (size_t i = 0; i < s.stack.size(); ++i)
      if (functions.count(s.stack[i].name)) {
        at = i;
        break;
      }
    if (at == s.stack.size()) continue;
    path.assign(1, &root);
    for (size_t i = at + 1; i < s.stack.size(); ++i) path.push_back(&s.stack[i].name);
    tree.add(path, s.work_ns, s.wait_ns);
  }
  return tree.table(min_percent, m.total_weight_ns, format, "callers");
}

std::vector<LineRow> line_rows(const Model& m) {
  std::map<std::string, LineRow> rows;
  std::vector<std::string> seen;
  for (const auto& s : m.samples) {
    seen.clear();
    for (size_t i = 0; i < s.stack.size(); ++i) {
      const omp::Frame& f = s.stack[i];
      std::string place;
      if (!f.file.empty() && f.line > 0)
        place = fmt::format("{}:{}", text::base_name(f.file), f.line);
      else if (!f.code_place.empty())
        place = f.code_place;
      else if (!f.pseudo)
        place = "(no line)";  // no line table: the row stands for the function's lines
      const std::string key = place + "\t" + f.name;
      LineRow& r = rows[key];
      if (r.place.empty()) {
        r.place = place;
        r.function = f.name;
      }
      if (i == 0) r.self += s.weight_ns;
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      r.total += s.weight_ns;
      r.samples += s.count;
      (omp::is_wait(s.state) ? r.wait : r.work) += s.weight_ns;
    }
  }
  std::vector<LineRow> sorted;
  for (auto& [k, r] : rows) sorted.push_back(std::move(r));
  std::sort(sorted.begin(), sorted.end(), [](const LineRow& a, const LineRow& b) {
    return a.self != b.self ? a.self > b.self : a.total > b.total;
  });
  return sorted;
}

Table lines_table(const Model& m, size_t top, Format format) {
  Table t({"self_s", "self%", "total_s", "total%", "samples", "work_s", "wait_s", "<line",
           "<function"});
  const double all = double(m.total_weight_ns);
  const std::vector<LineRow> rows = line_rows(m);
  for (size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
    const LineRow& r = rows[i];
    t.row({seconds(r.self), percent(r.self, all), seconds(r.total), percent(r.total, all),
           std::to_string(r.samples), seconds(r.work), seconds(r.wait),
           format == Format::kText ? fit(r.place, 28) : r.place, r.function});
  }
  return t;
}

}  // namespace omprof::viewer
