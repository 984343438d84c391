#include "viewer/job_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include "omp/states.h"
#include "viewer/call_views.h"
#include "viewer/profile_inputs.h"
#include "viewer/rank_spread.h"
#include "viewer/rank_tree.h"
#include "viewer/ranks.h"

namespace omprof::viewer {

namespace {

// The sample views of several ranks, filled one rank at a time (memory grows with the merged
// views, not with ranks x samples).
struct RankViews {
  explicit RankViews(const ReportOptions& options) : o(options) {
    if (!o.callees.empty()) call_trees.emplace_back(false, o.callees);
    if (!o.callers.empty()) call_trees.emplace_back(true, o.callers);
  }
  void add(int rank, const Model& m);
  void print(ReportOutput& out) const;
  void print_sample_views(ReportOutput& out) const;

  const ReportOptions& o;
  RankTree tree;
  RankFlat flat;
  LineTotals lines;
  std::vector<CallTree> call_trees;
  Table threads{{}}, states{{}}, parallel_regions{{}};
  RankSpread states_over, parallel_regions_over;
  uint64_t total_ns = 0;
};

void RankViews::add(int rank, const Model& m) {
  const std::string rank_text = std::to_string(rank);
  total_ns += m.total_weight_ns;
  if (o.tree) tree.add_rank(rank, m);
  if (o.flat) flat.add_rank(rank, m);
  if (o.lines) lines.add(m);
  for (auto& t : call_trees) t.add(m);
  // Per-rank tables, under a rank column.
  if (o.threads) threads.append_with("rank", rank_text, thread_table(m, o.format));
  if (o.states) {
    states.append_with("rank", rank_text, state_table(m));
    std::map<std::string, std::pair<std::string, uint64_t>> by_state;
    for (const auto& s : m.samples) {
      auto& v = by_state[omp::describe_state(s.state).name];
      v.first = omp::is_wait(s.state) ? "wait" : "work";
      v.second += s.weight_ns;
    }
    states_over.add_rank(rank, by_state);
  }
  if (o.parallel_regions) {
    parallel_regions.append_with("rank", rank_text, parallel_region_table(m, o.format));
    std::map<std::string, std::pair<std::string, uint64_t>> by_construct;
    for (const auto& [key, r] : parallel_region_totals(m)) by_construct[key] = {"", r.incl};
    parallel_regions_over.add_rank(rank, by_construct);
  }
}

void RankViews::print_sample_views(ReportOutput& out) const {
  if (o.flat)
    out.section("flat",
                fmt::format("Flat profile over ranks (top {} by {} time summed over ranks; "
                            "min/avg/max of self time over the ranks whose samples reached "
                            "each function):",
                            o.top, sort_key_name(o.sort)),
                flat.table(o.top, o.format, o.sort));
  if (o.tree)
    out.section("tree",
                fmt::format("Call tree over ranks (min/avg/max of inclusive time over the "
                            "ranks that reached each node; nodes >= {}% of the total):",
                            o.min_percent),
                tree.table(o.min_percent, o.format));
  if (o.lines)
    out.section("lines",
                fmt::format("Source lines over ranks (summed; {} by {} time):",
                            o.top ? "top " + std::to_string(o.top) : std::string("all"),
                            sort_key_name(o.sort)),
                lines.table(total_ns, o.top, o.format, o.sort));
  for (const auto& t : call_trees)
    out.section(t.key(), t.title(o.min_percent, "summed over ranks"),
                t.table(o.min_percent, total_ns, o.format));
}

void RankViews::print(ReportOutput& out) const {
  print_sample_views(out);
  if (o.threads) out.section("threads", "Threads of each rank:", threads);
  if (o.states) {
    out.section("states_over_ranks",
                "OpenMP states over ranks (each rank's time in the state, all threads; min/avg/"
                "max over all ranks, a rank without the state counting 0):",
                states_over.table("state", "class"));
    out.section("states", "OpenMP states of each rank:", states);
  }
  if (o.parallel_regions) {
    out.section("parallel_regions_over_ranks",
                "Parallel regions over ranks (each rank's thread time inside the construct; "
                "min/avg/max over all ranks, a rank without it counting 0):",
                parallel_regions_over.table("construct", ""));
    out.section("parallel_regions", "Parallel regions of each rank:", parallel_regions);
  }
}

bool wants_sample_views(const ReportOptions& o) {
  return o.tree || o.flat || o.lines || o.threads || o.states || o.parallel_regions ||
         !o.callers.empty() || !o.callees.empty();
}

// What the job's profiles say, each reduced as it is read.
struct JobReading {
  std::vector<RankNumbers> ranks;
  std::map<std::string, std::vector<int64_t>> unusual_endings;  // how -> ranks
  int64_t size = 0;
};

void read_rank(const format::Profile& p, const ReportOptions& o, RankViews& views,
               JobReading& job) {
  job.size = std::max<int64_t>(job.size, p.header.mpi_size());
  const auto& ending = p.header.ending();
  if (p.header.recovered() || ending.kind() != v1::Ending::ENDING_EXITED ||
      ending.exit_status() != 0)
    job.unusual_endings[ending_text(p.header)].push_back(p.header.mpi_rank());
  job.ranks.push_back(rank_numbers(p));
  if (!wants_sample_views(o)) return;
  Model m = build_model(p, o.view);
  apply_filter(m, SampleFilter(o.filter));
  views.add(p.header.mpi_rank(), m);
}

// Ranks that did not end normally (killed, recovered from their journals) are named: their
// times end where they died, not at MPI_Finalize.
void print_endings(std::ostream& text, std::map<std::string, std::vector<int64_t>>& endings) {
  for (auto& [how, which] : endings) {
    std::sort(which.begin(), which.end());
    std::string list;
    for (const int64_t rank : which) list += (list.empty() ? "" : ", ") + std::to_string(rank);
    text << fmt::format("Ended:     {} {}: {}\n", which.size() == 1 ? "rank" : "ranks", list, how);
  }
}

void print_job_regions(ReportOutput& out, const ranks::JobSummary& job) {
  if (out.text()) {
    out.text_out() << "\n";
    ranks::write_regions_text(out.text_out(), job);
  } else if (out.format() == Format::kCsv) {
    out.section_csv_text([&](std::ostream& csv) { ranks::write_regions_csv(csv, job); });
  } else {
    std::ostringstream csv;
    ranks::write_regions_csv(csv, job);
    out.section("regions", "", Table::from_csv(csv.str(), {"path"}));
  }
}

}  // namespace

int report_job(const std::vector<std::string>& files, const ReportOptions& o, bool show_ranks,
               SymbolCache& symbols, ReportOutput& out, int status) {
  JobReading reading;
  RankViews views(o);
  for_each_profile(files, symbols, status, [&](const format::Profile& p) {
    if (p.header.mpi_rank() < 0) {
      std::cerr << "omprof: " << p.path << ": not an MPI rank's profile; left out\n";
      status = 1;
      return;
    }
    read_rank(p, o, views, reading);
  });
  std::sort(reading.ranks.begin(), reading.ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  const ranks::JobSummary job = ranks::summarize_ranks(
      reading.ranks, std::max<int64_t>(reading.size, int64_t(reading.ranks.size())));
  std::ostringstream text;
  ranks::write_header(text, job);
  print_endings(text, reading.unusual_endings);
  out.text_out() << text.str();
  if (show_ranks || !o.explicit_regions) out.section("ranks", "Ranks:", ranks_table(reading.ranks));
  if (o.explicit_regions) print_job_regions(out, job);
  views.print(out);
  return status;
}

bool several_ranks(const std::vector<std::string>& files, SymbolCache& symbols) {
  if (files.size() < 2) return false;
  try {
    return load_profile(files[0], symbols).header.mpi_rank() >= 0;
  } catch (const format::ProfileError&) {
    return false;
  }
}

}  // namespace omprof::viewer
