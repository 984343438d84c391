// A profile report's header: its facts computed once from the model (header_facts), then
// rendered as text lines (print_header) or as the JSON object "header" (header_json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "viewer/busy_machine.h"
#include "viewer/filter.h"
#include "viewer/idle_blame.h"
#include "viewer/model.h"

namespace omprof::viewer {

struct HeaderFacts {
  uint64_t duration_ns = 0;
  // The main thread's wall time inside the outermost parallel regions it forked (format 1.14;
  // 0: none, or not measured); the rest of the run is its serial time.
  uint64_t master_parallel_ns = 0;
  IdleTotals idle;
  BusyMachine busy;
  uint64_t dropped = 0, dropped_ns = 0, truncated = 0, unwind_failed = 0, short_stack = 0;
  uint64_t unmeasured_waits = 0;  // libgomp: waits the cost guard did not measure (1.15)
  // Exact waits that did not fit the thread's wait table or stack of open waits.
  uint64_t waits_dropped = 0, waits_dropped_ns = 0;
  const char* clock = "cpu";  // "wall", "task" or "cpu"
  const char* view = "user";
};
HeaderFacts header_facts(const Model& m);

void print_header(std::ostream& out, const Model& m, const HeaderFacts& facts);
nlohmann::json header_json(const Model& m, const HeaderFacts& facts, const FilterOptions& filter);
// Both from the model alone.
void print_header(std::ostream& out, const Model& m);
nlohmann::json header_json(const Model& m, const FilterOptions& filter);

// The lines the header of a single profile and of an MPI job share.
// "Master:    0.421 s serial (59.9%), 0.282 s in parallel regions (fork to join)"; "" if the
// profile has no parallel wall time.
std::string master_line(uint64_t duration_ns, uint64_t parallel_ns);
// "Idle:      0.249 s of OpenMP workers; 0.245 s blamed on ..."; "" when both print as 0.000.
std::string idle_line(const IdleTotals& idle);

// How the process ended (format 1.4), and whether the profile holds everything.
std::string ending_text(const v1::Header& h);
// "Filter: ... keeps N samples, X s of Y s" when the model was filtered.
void print_filter_line(std::ostream& out, const Model& m, const FilterOptions& filter);
// An argument as a shell would need it: as is when plain, else quoted.
std::string shell_quote(const std::string& arg);

}  // namespace omprof::viewer
