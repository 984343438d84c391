// `omprof report`: the header, flat, tree, thread, state and parallel-region views of a profile.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <unordered_map>

#include "viewer/filter.h"
#include "viewer/header_facts.h"
#include "viewer/model.h"
#include "viewer/report_output.h"
#include "viewer/sampling_error.h"
#include "viewer/sort_key.h"
#include "viewer/table.h"

namespace omprof::viewer {

struct ReportOptions {
  omp::View view = omp::View::kUser;
  Format format = Format::kText;
  size_t top = 20;
  SortKey sort = SortKey::kSelf;  // --sort: the flat and line views' order
  double min_percent = 1.0;
  bool flat = false, tree = false, threads = false, states = false;
  bool parallel_regions = false;  // --parallel-regions: OpenMP constructs
  bool idle_blame = false;        // --idle-blame: idle workers' time on the serial code
  bool explicit_regions = false;  // --regions: the annotation API's regions
  bool lines = false;             // --lines: time by source line
  std::string callers, callees;   // --callers FUNC, --callees FUNC (a name or a regex)
  bool header = true;
  // Text: lines at most this wide, names shortened in the middle; 0 = full names.
  size_t width = 0;
  FilterOptions filter;  // which samples the views count (viewer/filter.h)
};

// Throws FilterError when --callers/--callees name no function of the profile.
void print_report(ReportOutput& out, const format::Profile& p, const ReportOptions& opt);
bool any_view(const ReportOptions& opt);  // a view was asked for (else the default ones)

// Individual views (also used by tests).
// One function of the flat view: self time (at the leaf), total time (anywhere in the stack,
// once per sample), and the total split into work and wait.
struct FlatRow {
  omp::Name name, file;
  uint64_t self = 0, total = 0, work = 0, wait = 0;
  Estimate total_estimate;  // total's samples and sampling error (viewer/sampling_error.h)
  // Counter events (Header.counter_event) attributed at the leaf and anywhere in the stack.
  std::array<uint64_t, counters::kMaxCounters> counters_self{}, counters_total{};
};
// Per function (by name).
std::unordered_map<omp::Name, FlatRow> flat_rows(const Model& m);
Table flat_table(const Model& m, size_t top, Format format, SortKey sort = SortKey::kSelf);
Table tree_table(const Model& m, double min_percent, Format format);
Table thread_table(const Model& m, Format format);
// Text leaves out the rows that print as 0.000 s (a thread's trace of a state).
Table state_table(const Model& m, Format format = Format::kCsv);
Table parallel_region_table(const Model& m, Format format);
// How many parallel constructs rest on fewer than kFewSamples samples, of `*all` constructs.
size_t rough_parallel_regions(const Model& m, size_t* all);
// A parallel construct's totals (its call paths merged): what `omprof diff` compares.
struct ParallelRegionTotals {
  std::string function, place;
  uint64_t instances = 0, incl = 0, work = 0, wait = 0;  // thread time inside, summed
  uint64_t wall = 0;  // fork to join on the encountering thread, summed (0: not measured)
};
// By "function @ file:line".
std::map<std::string, ParallelRegionTotals> parallel_region_totals(const Model& m);

}  // namespace omprof::viewer
