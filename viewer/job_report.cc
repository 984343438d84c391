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

// The header facts of the job's ranks (header_facts.h), summed: the master's serial time, the
// idle workers and the machine's load, with the ranks that stand out.
struct JobFacts {
  int ranks = 0, ranks_timed = 0;  // ranks, and those with fork-to-join times (format 1.14)
  uint64_t duration_ns = 0, parallel_ns = 0;  // of the ranks timed
  double min_serial = 2, max_serial = -1;     // serial shares of the main thread
  int min_serial_rank = -1, max_serial_rank = -1;
  IdleTotals idle;
  BusyMachine busy;  // sums; `busy` if any rank was
  std::vector<int64_t> busy_ranks;
  void add(int rank, const HeaderFacts& f);
  void print(std::ostream& out) const;
  nlohmann::json json() const;
};

void JobFacts::add(int rank, const HeaderFacts& f) {
  ++ranks;
  if (f.master_parallel_ns && f.duration_ns) {
    ++ranks_timed;
    duration_ns += f.duration_ns;
    parallel_ns += f.master_parallel_ns;
    const double serial = double(f.duration_ns - f.master_parallel_ns) / double(f.duration_ns);
    if (serial < min_serial) min_serial = serial, min_serial_rank = rank;
    if (serial > max_serial) max_serial = serial, max_serial_rank = rank;
  }
  idle.idle_ns += f.idle.idle_ns;
  idle.blamed_ns += f.idle.blamed_ns;
  if (!f.busy.known) return;
  busy.known = true;
  busy.run_delay_ns += f.busy.run_delay_ns;
  busy.thread_life_ns += f.busy.thread_life_ns;
  busy.involuntary += f.busy.involuntary;
  busy.omp_wait_ns += f.busy.omp_wait_ns;
  busy.preemption_bound_ns += f.busy.preemption_bound_ns;
  if (f.busy.busy) busy_ranks.push_back(rank);
}

std::string rank_list(std::vector<int64_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string list;
  for (const int64_t r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return list;
}

void JobFacts::print(std::ostream& out) const {
  if (ranks_timed) {
    const double n = double(ranks_timed);
    out << fmt::format(
        "Master:    {} s serial on average per rank ({}% of its run; {}% on rank {} to {}% on "
        "rank {}), {} s in parallel regions\n",
        seconds(double(duration_ns - parallel_ns) / n),
        percent(double(duration_ns - parallel_ns), double(duration_ns)), percent(min_serial, 1.0),
        min_serial_rank, percent(max_serial, 1.0), max_serial_rank,
        seconds(double(parallel_ns) / n));
    const std::string line = idle_line(idle);
    if (!line.empty()) out << line.substr(0, line.size() - 1) << ", summed over ranks\n";
  }
  if (!busy.known) return;
  out << fmt::format(
      "Machine:   the ranks' threads waited {} s for a CPU ({}% of their lifetime), {} "
      "involuntary switches{}\n",
      seconds(busy.run_delay_ns), percent(double(busy.run_delay_ns), double(busy.thread_life_ns)),
      busy.involuntary,
      busy_ranks.empty() ? std::string() : "; busy on ranks " + rank_list(busy_ranks));
  if (!busy_ranks.empty())
    out << fmt::format(
        "WARNING:   the machine was busy on {} of {} ranks: up to {} s of the {} s of OpenMP "
        "waits can be team members waiting for a preempted one, not imbalance (each rank: "
        "--rank N)\n",
        busy_ranks.size(), ranks, seconds(busy.preemption_bound_ns), seconds(busy.omp_wait_ns));
}

nlohmann::json JobFacts::json() const {
  nlohmann::json j;
  if (ranks_timed) {
    j["master_serial_avg_s"] = double(duration_ns - parallel_ns) * 1e-9 / ranks_timed;
    j["master_parallel_avg_s"] = double(parallel_ns) * 1e-9 / ranks_timed;
    j["master_serial_min_rank"] = min_serial_rank;
    j["master_serial_max_rank"] = max_serial_rank;
  }
  j["idle_workers_s"] = double(idle.idle_ns) * 1e-9;
  j["idle_blamed_s"] = double(idle.blamed_ns) * 1e-9;
  if (busy.known) {
    j["run_delay_s"] = double(busy.run_delay_ns) * 1e-9;
    j["involuntary_switches"] = busy.involuntary;
    j["busy_ranks"] = busy_ranks;
    j["waits_up_to_preemption_s"] = double(busy.preemption_bound_ns) * 1e-9;
  }
  return j;
}

// What the job's profiles say, each reduced as it is read.
struct JobReading {
  JobFacts facts;
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
  Model m = build_model(p, o.view);
  apply_filter(m, SampleFilter(o.filter));
  job.facts.add(p.header.mpi_rank(), header_facts(m));
  if (wants_sample_views(o)) views.add(p.header.mpi_rank(), m);
}

// Ranks that did not end normally (killed, recovered from their journals) are named: their
// times end where they died, not at MPI_Finalize.
void print_endings(std::ostream& text, const std::map<std::string, std::vector<int64_t>>& endings) {
  for (const auto& [how, which] : endings)
    text << fmt::format("Ended:     {} {}: {}\n", which.size() == 1 ? "rank" : "ranks",
                        rank_list(which), how);
}

void print_job_regions(ReportOutput& out, const ranks::JobSummary& job) {
  if (!out.text()) {
    region_summary_section(out, job, "regions");
    return;
  }
  out.text_out() << "\n";
  ranks::write_regions_text(out.text_out(), job);
}

}  // namespace

void region_summary_section(ReportOutput& out, const ranks::JobSummary& job, const char* key) {
  if (out.format() == Format::kCsv) {
    out.section_csv_text([&](std::ostream& csv) { ranks::write_regions_csv(csv, job); });
    return;
  }
  std::ostringstream csv;
  ranks::write_regions_csv(csv, job);
  out.section(key, "", Table::from_csv(csv.str(), {"path"}));
}

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
  reading.facts.print(text);
  out.text_out() << text.str();
  out.value("job", reading.facts.json());
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
