// `omprof diff BASE NEW`: what changed between two runs (or two sets of rank profiles), per
// function and per explicit region, in absolute and relative terms, sorted by the size of the
// change. Each side is reduced to its totals as its profiles are read.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "viewer/model.h"
#include "viewer/report_output.h"
#include "viewer/table.h"

namespace omprof::viewer {

struct DiffTimes {
  uint64_t self = 0, total = 0, work = 0, wait = 0;
  std::map<std::string, uint64_t> events;  // counter events attributed anywhere under it, by event
};

// A counter event's totals on one side (`omprof run --counters`), summed over the profiles, and
// the CPU time of the threads that counted it (its rate is per that).
struct DiffCounter {
  uint64_t total = 0, cpu_ns = 0;
};

struct DiffRegion {
  double incl_ns = 0;  // the slowest thread's inclusive wall time, averaged over the profiles
  int64_t calls = 0;   // summed over the profiles
  uint64_t work = 0, wait = 0;  // sampled thread time, summed
  size_t profiles = 0;          // profiles that ran the region
};

// A parallel construct on one side: thread time inside it, summed over the profiles, and its
// fork-to-join wall time, averaged over them (0: the profiles do not have it, before 1.14).
struct DiffParallelRegion {
  uint64_t instances = 0, incl = 0, work = 0, wait = 0;
  double wall_ns = 0;
};

// One side of the diff: its profiles' functions and regions.
struct DiffSide {
  std::map<std::string, DiffTimes> functions;                  // by name (user-model frames)
  std::map<std::string, DiffRegion> regions;                   // by path "outer/inner"
  std::map<std::string, DiffParallelRegion> parallel_regions;  // by "function @ file:line"
  std::map<std::string, DiffCounter> counters;                 // by event name
  DiffTimes all;       // total, work and wait of every sample
  double wall_ns = 0;  // the profiles' durations, averaged
  size_t profiles = 0;
  void add(const Model& m);  // a profile's model (filtered or not)
  void finish();             // averages over the profiles
};

// Rows by the size of the change of self time (`by_total`: of total time), largest first.
Table diff_functions_table(const DiffSide& base, const DiffSide& now, size_t top, bool by_total,
                           Format format);
Table diff_regions_table(const DiffSide& base, const DiffSide& now, Format format);
// Parallel constructs by the size of the change of the thread time inside them.
Table diff_parallel_regions_table(const DiffSide& base, const DiffSide& now, Format format);
Table diff_totals_table(const DiffSide& base, const DiffSide& now, Format format);
// The counter events either side counted, matched by name: totals and rates per CPU-second.
Table diff_counters_table(const DiffSide& base, const DiffSide& now, Format format);
// The events both sides counted (the functions table's delta_EVENT columns).
std::vector<std::string> shared_events(const DiffSide& base, const DiffSide& now);
// A change in percent of the base ("+12.3"); in text "new", "gone", or "x20.5" beyond ten times.
std::string change_percent(double base, double now, Format format);

}  // namespace omprof::viewer
