// The manifest: what the collector tells `omprof run`, one tab-separated line per event,
// appended to the file named by OMPROF_MANIFEST (collector/run_report.h writes, the launcher
// reads). Header-only, both sides use these functions.
//   start <pid> [<journal>]                         the collector started in this process, and
//                                                   the journal it keeps (docs/format.md)
//   ok <path> <samples> <threads> <dropped> <truncated>
//   error <message>                                 no profile: why
//   warning <message>                               a profile, with something the user must know
//   note <message>                                  something else written (the MPI summary)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace omprof::manifest {

inline std::string start_line(long pid, const std::string& journal) {
  return "start\t" + std::to_string(pid) + (journal.empty() ? "" : "\t" + journal);
}
inline std::string ok_line(const std::string& path, uint64_t samples, uint64_t threads,
                           uint64_t dropped, uint64_t truncated) {
  return "ok\t" + path + "\t" + std::to_string(samples) + "\t" + std::to_string(threads) + "\t" +
         std::to_string(dropped) + "\t" + std::to_string(truncated);
}
inline std::string error_line(const std::string& message) {
  return "error\t" + message;
}
inline std::string warning_line(const std::string& message) {
  return "warning\t" + message;
}
inline std::string note_line(const std::string& message) {
  return "note\t" + message;
}

enum class Kind { kStart, kOk, kError, kWarning, kNote, kUnknown };
struct Entry {
  Kind kind = Kind::kUnknown;
  std::vector<std::string> fields;  // after the kind
};

inline Entry parse_line(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    cells.push_back(line.substr(start, tab - start));
  cells.push_back(line.substr(start));
  Entry e;
  const std::string kind = cells.front();
  e.fields.assign(cells.begin() + 1, cells.end());
  if (kind == "start" && (e.fields.size() == 1 || e.fields.size() == 2))
    e.kind = Kind::kStart;
  else if (kind == "ok" && e.fields.size() == 5)
    e.kind = Kind::kOk;
  else if (kind == "error" && !e.fields.empty())
    e.kind = Kind::kError;
  else if (kind == "warning" && !e.fields.empty())
    e.kind = Kind::kWarning;
  else if (kind == "note" && !e.fields.empty())
    e.kind = Kind::kNote;
  return e;
}

}  // namespace omprof::manifest
