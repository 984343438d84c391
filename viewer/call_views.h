// The views around one function and the source-line view of `omprof report`:
//   --callees FUNC  the call tree below FUNC, merged over every place it is called from
//   --callers FUNC  the tree of FUNC's callers, up to the roots (bottom-up)
//   --lines         time by source line (file:line of each frame, inlined frames resolved)
// Each is an accumulator: the profiles of several ranks add up into one view.
#pragma once

#include <map>
#include <set>
#include <string>

#include "viewer/model.h"
#include "viewer/path_tree.h"
#include "viewer/sort_key.h"
#include "viewer/table.h"

namespace omprof::viewer {

// The function names that FUNC stands for: the name itself when a frame has it, else every name
// that the regular expression FUNC matches (empty: none). Throws FilterError for a bad regex.
std::set<std::string> match_functions(const Model& m, const std::string& func);

// The callees (or callers) tree of a set of functions, over one or more models.
class CallTree {
 public:
  CallTree(bool callers, std::string func) : callers_(callers), func_(std::move(func)) {}
  // Adds a model's samples through the functions FUNC matches in it; false if it matches none.
  bool add(const Model& m);
  // Throws FilterError when no model had a matching function.
  Table table(double min_percent, uint64_t total_ns, Format format) const;
  // "Callers of f (nodes >= 1% of total; summed over ranks):"; `how` may be empty.
  std::string title(double min_percent, const std::string& how = "") const;
  const char* key() const { return callers_ ? "callers" : "callees"; }

 private:
  bool callers_;
  std::string func_;
  std::set<std::string> functions_;  // matched in any model
  PathTree tree_;
};

// One source line: time with the line at the leaf (self), and with the line anywhere in the
// stack (total; a call site's line holds the time of the call).
struct LineRow {
  std::string place, function;  // "file.c:42" (or the function's code place), the function
  uint64_t self = 0, total = 0, work = 0, wait = 0, samples = 0;
};
class LineTotals {
 public:
  void add(const Model& m);
  std::vector<LineRow> rows(SortKey sort = SortKey::kSelf) const;  // largest first
  Table table(uint64_t total_ns, size_t top, Format format, SortKey sort = SortKey::kSelf) const;

 private:
  std::map<std::string, LineRow> rows_;  // by place and function
};

}  // namespace omprof::viewer
