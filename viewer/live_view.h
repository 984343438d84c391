// `omprof top DIR` (docs/usage.md): a snapshot of what a running job's ranks have measured so
// far, read from the files `omprof run -o DIR` writes (journals of running processes, profiles
// of ended ones) without touching the processes: the last whole interval of every thread
// (viewer/timeline.h), the run so far by loss class (viewer/scaling_run.h), its parallel and
// explicit regions with their efficiency, the functions with the most work, the slowest ranks.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "viewer/symbolize.h"

namespace omprof::viewer {

// What a reader that takes many snapshots keeps from one to the next: the symbols (resolving the
// same addresses again was most of a snapshot's cost: 0.2 s of CPU on LULESH), and the copies of
// the journals (copied again into the same pages; those of ended processes are freed).
struct LiveReader {
  SymbolCache symbols;
  format::JournalCopies journals;
};

// False with `error` (one line) when DIR holds nothing to read.
bool live_snapshot(const std::string& dir, size_t top, nlohmann::json& snapshot, std::string& error,
                   LiveReader& reader);
void write_live_text(std::ostream& out, const nlohmann::json& snapshot);

}  // namespace omprof::viewer
