// The views around one function and the source-line view of `omprof report`:
//   --callees FUNC  the call tree below FUNC, merged over every place it is called from
//   --callers FUNC  the tree of FUNC's callers, up to the roots (bottom-up)
//   --lines         time by source line (file:line of each frame, inlined frames resolved)
#pragma once

#include <set>
#include <string>

#include "viewer/model.h"
#include "viewer/table.h"

namespace omprof::viewer {

// The function names that FUNC stands for: the name itself when a frame has it, else every name
// that the regular expression FUNC matches (empty: none). Throws FilterError for a bad regex.
std::set<std::string> match_functions(const Model& m, const std::string& func);

Table callees_table(const Model& m, const std::set<std::string>& functions, double min_percent,
                    Format format);
Table callers_table(const Model& m, const std::set<std::string>& functions, double min_percent,
                    Format format);

// One source line: time with the line at the leaf (self), and with the line anywhere in the
// stack (total; a call site's line holds the time of the call).
struct LineRow {
  std::string place, function;  // "file.c:42" (or the function's code place), the function
  uint64_t self = 0, total = 0, work = 0, wait = 0, samples = 0;
};
std::vector<LineRow> line_rows(const Model& m);  // by self time, then total
Table lines_table(const Model& m, size_t top, Format format);

}  // namespace omprof::viewer
