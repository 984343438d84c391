// `omprof top DIR` (docs/usage.md): a snapshot of what a running job's ranks have measured so
// far, read from the files `omprof run -o DIR` writes (journals of running processes, profiles
// of ended ones) without touching the processes: the last whole interval of every thread
// (viewer/timeline.h), the run so far by loss class (viewer/scaling_run.h), its parallel and
// explicit regions with their efficiency, the functions with the most work, the slowest ranks.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace omprof::viewer {

// False with `error` (one line) when DIR holds nothing to read.
bool live_snapshot(const std::string& dir, size_t top, nlohmann::json& snapshot,
                   std::string& error);
void write_live_text(std::ostream& out, const nlohmann::json& snapshot);

}  // namespace omprof::viewer
