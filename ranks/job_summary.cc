#include "ranks/job_summary.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace omprof::ranks {

namespace {

Partial one_rank(int rank, double incl, const TimeSplit& split, int64_t calls, double self) {
  Partial p;
  p.ranks = 1;
  const double comp = split.computation_ns(incl);
  p.incl_min = p.incl_max = p.incl_sum = incl;
  p.incl_min_rank = p.incl_max_rank = rank;
  p.comp_min = p.comp_max = p.comp_sum = comp;
  p.comp_min_rank = p.comp_max_rank = rank;
  p.self_sum = self;
  p.outside_mpi_sum = split.outside_mpi_ns(incl);
  p.work_sum = double(split.work_ns);
  p.omp_wait_sum = double(split.omp_wait_ns);
  p.mpi_wait_sum = double(split.mpi_wait_ns);
  p.calls_min = p.calls_max = calls;
  p.calls_sum = double(calls);
  return p;
}

// Extremes with their rank; ties go to the lowest rank, whatever the order of combination.
void take_min(double v, int64_t rank, double& min, int64_t& min_rank) {
  if (v < min || (v == min && rank < min_rank)) min = v, min_rank = rank;
}
void take_max(double v, int64_t rank, double& max, int64_t& max_rank) {
  if (v > max || (v == max && rank < max_rank)) max = v, max_rank = rank;
}

std::string seconds(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", ns / 1e9);
  return b;
}
std::string fixed(double v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}
std::string percent(double part, double whole) {
  return whole > 0 ? fixed(100.0 * part / whole, 1) : "0.0";
}
std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

Partial region_partial(int rank, const RankRegion& r) {
  return one_rank(rank, double(r.incl_ns), r.split, r.calls, double(r.self_ns));
}

Partial run_partial(const RankNumbers& r) {
  Partial p = one_rank(r.rank, double(r.elapsed_ns), r.split, 0, 0);
  p.threads_sum = r.threads;
  p.samples_sum = double(r.samples);
  p.setup_sum = p.setup_max = double(r.setup_ns);
  return p;
}

void combine(const Partial& in, Partial& io) {
  if (in.ranks == 0) return;
  if (io.ranks == 0) {
    io = in;
    return;
  }
  io.ranks += in.ranks;
  take_min(in.incl_min, in.incl_min_rank, io.incl_min, io.incl_min_rank);
  take_max(in.incl_max, in.incl_max_rank, io.incl_max, io.incl_max_rank);
  take_min(in.comp_min, in.comp_min_rank, io.comp_min, io.comp_min_rank);
  take_max(in.comp_max, in.comp_max_rank, io.comp_max, io.comp_max_rank);
  io.calls_min = std::min(io.calls_min, in.calls_min);
  io.calls_max = std::max(io.calls_max, in.calls_max);
  io.incl_sum += in.incl_sum;
  io.comp_sum += in.comp_sum;
  io.self_sum += in.self_sum;
  io.setup_sum += in.setup_sum;
  io.setup_max = std::max(io.setup_max, in.setup_max);
  io.outside_mpi_sum += in.outside_mpi_sum;
  io.work_sum += in.work_sum;
  io.omp_wait_sum += in.omp_wait_sum;
  io.mpi_wait_sum += in.mpi_wait_sum;
  io.calls_sum += in.calls_sum;
  io.threads_sum += in.threads_sum;
  io.samples_sum += in.samples_sum;
}

Efficiencies efficiencies(const Partial& p) {
  Efficiencies e;
  if (p.ranks == 0 || p.incl_max <= 0) return e;
  const double n = double(p.ranks);
  e.load_balance = p.comp_max > 0 ? p.comp_sum / n / p.comp_max : 0;
  e.communication = p.comp_max / p.incl_max;
  e.parallel = e.load_balance * e.communication;
  e.mpi_parallel = p.outside_mpi_sum / n / p.incl_max;
  e.omp_parallel = e.mpi_parallel > 0 ? e.parallel / e.mpi_parallel : 0;
  return e;
}

std::vector<std::string> union_of_paths(const std::vector<RankNumbers>& ranks) {
  std::set<std::string> paths;
  for (const auto& r : ranks)
    for (const auto& [path, x] : r.regions) paths.insert(path);
  return {paths.begin(), paths.end()};
}

void finish(JobSummary& s, const std::vector<std::string>& paths,
            const std::vector<Partial>& region_partials) {
  s.eff = efficiencies(s.run);
  s.regions.clear();
  for (size_t i = 0; i < paths.size() && i < region_partials.size(); ++i) {
    ReducedRegion r;
    r.path = paths[i];
    r.p = region_partials[i];
    r.eff = efficiencies(r.p);
    s.regions.push_back(std::move(r));
  }
}

JobSummary summarize_ranks(const std::vector<RankNumbers>& ranks, int64_t size) {
  JobSummary s;
  s.size = size;
  s.scope = "whole run";
  const std::vector<std::string> paths = union_of_paths(ranks);
  std::vector<Partial> partials(paths.size());
  for (const auto& r : ranks) {
    combine(run_partial(r), s.run);
    for (size_t i = 0; i < paths.size(); ++i) {
      const auto it = r.regions.find(paths[i]);
      if (it != r.regions.end()) combine(region_partial(r.rank, it->second), partials[i]);
    }
    if (r.regions.size() != paths.size()) s.differing_ranks.push_back(r.rank);
  }
  finish(s, paths, partials);
  return s;
}

void write_header(std::ostream& out, const JobSummary& s) {
  const Partial& r = s.run;
  const double thread_time = r.work_sum + r.omp_wait_sum + r.mpi_wait_sum;
  out << "omprof MPI summary (" << s.scope << "): " << r.ranks << " of " << s.size << " ranks, "
      << fixed(r.threads_sum, 0) << " threads, " << fixed(r.samples_sum, 0) << " samples\n";
  out << "Elapsed:   " << seconds(r.incl_max) << " s on rank " << r.incl_max_rank << " (shortest "
      << seconds(r.incl_min) << " s on rank " << r.incl_min_rank
      << "), from MPI_Init's return to MPI_Finalize\n";
  if (r.setup_max > 0)
    out << "Setup:     MPI_Init and MPI_Finalize, outside the window: " << seconds(r.setup_max)
        << " s at most, " << seconds(r.ranks ? r.setup_sum / double(r.ranks) : 0)
        << " s on average per rank\n";
  out << "Time:      work " << percent(r.work_sum, thread_time) << "%, OpenMP wait "
      << percent(r.omp_wait_sum, thread_time) << "%, MPI wait "
      << percent(r.mpi_wait_sum, thread_time) << "% of " << seconds(thread_time)
      << " s thread time\n";
  out << "POP:       parallel efficiency " << fixed(s.eff.parallel, 3) << " = load balance "
      << fixed(s.eff.load_balance, 3) << " x communication efficiency "
      << fixed(s.eff.communication, 3) << "; MPI parallel efficiency "
      << fixed(s.eff.mpi_parallel, 3) << ", OpenMP parallel efficiency "
      << fixed(s.eff.omp_parallel, 3) << "\n";
  out << "Regions:   " << s.regions.size() << " paths; ";
  if (s.differing_ranks.empty()) {
    out << "strict: every rank has the same region tree\n";
  } else {
    out << "not strict: ranks ";
    for (size_t i = 0; i < s.differing_ranks.size(); ++i)
      out << (i ? "," : "") << s.differing_ranks[i];
    out << " lack region paths other ranks have\n";
  }
}

void write_regions_text(std::ostream& out, const JobSummary& s) {
  if (s.regions.empty()) {
    out << "No explicit regions.\n";
    return;
  }
  out << "Explicit regions over ranks (union: min/avg/max over the ranks that ran each;"
         " comp = computation):\n";
  char line[512];
  std::snprintf(line, sizeof line, "%9s %11s %11s %11s %5s %11s %11s %5s %11s %11s %6s %6s  %s\n",
                "ranks", "incl_min_s", "incl_avg_s", "incl_max_s", "@max", "comp_avg_s",
                "comp_max_s", "@max", "omp_wait_s", "mpi_wait_s", "LB", "PE", "region");
  out << line;
  for (const auto& g : s.regions) {
    const std::string ranks = std::to_string(g.p.ranks) + "/" + std::to_string(s.size);
    std::snprintf(
        line, sizeof line, "%9s %11s %11s %11s %5lld %11s %11s %5lld %11s %11s %6.3f %6.3f  %s\n",
        ranks.c_str(), seconds(g.p.incl_min).c_str(), seconds(g.avg(g.p.incl_sum)).c_str(),
        seconds(g.p.incl_max).c_str(), (long long)g.p.incl_max_rank,
        seconds(g.avg(g.p.comp_sum)).c_str(), seconds(g.p.comp_max).c_str(),
        (long long)g.p.comp_max_rank, seconds(g.avg(g.p.omp_wait_sum)).c_str(),
        seconds(g.avg(g.p.mpi_wait_sum)).c_str(), g.eff.load_balance, g.eff.parallel,
        g.path.c_str());
    out << line;
  }
}

void write_text(std::ostream& out, const JobSummary& s) {
  write_header(out, s);
  out << "\n";
  write_regions_text(out, s);
}

void write_regions_csv(std::ostream& out, const JobSummary& s) {
  out << "path,ranks,missing_ranks,incl_min_s,incl_min_rank,incl_avg_s,incl_max_s,incl_max_rank,"
         "comp_min_s,comp_min_rank,comp_avg_s,comp_max_s,comp_max_rank,self_avg_s,calls_min,"
         "calls_avg,calls_max,work_avg_s,omp_wait_avg_s,mpi_wait_avg_s,load_balance,comm_eff,"
         "parallel_eff,mpi_parallel_eff,omp_parallel_eff\n";
  auto row = [&](const std::string& path, const Partial& p, const Efficiencies& e) {
    auto avg = [&](double sum) { return p.ranks ? sum / double(p.ranks) : 0; };
    out << csv_quoted(path) << ',' << p.ranks << ',' << s.size - p.ranks << ','
        << seconds(p.incl_min) << ',' << p.incl_min_rank << ',' << seconds(avg(p.incl_sum)) << ','
        << seconds(p.incl_max) << ',' << p.incl_max_rank << ',' << seconds(p.comp_min) << ','
        << p.comp_min_rank << ',' << seconds(avg(p.comp_sum)) << ',' << seconds(p.comp_max) << ','
        << p.comp_max_rank << ',' << seconds(avg(p.self_sum)) << ',' << p.calls_min << ','
        << fixed(avg(p.calls_sum), 3) << ',' << p.calls_max << ',' << seconds(avg(p.work_sum))
        << ',' << seconds(avg(p.omp_wait_sum)) << ',' << seconds(avg(p.mpi_wait_sum)) << ','
        << fixed(e.load_balance, 6) << ',' << fixed(e.communication, 6) << ','
        << fixed(e.parallel, 6) << ',' << fixed(e.mpi_parallel, 6) << ','
        << fixed(e.omp_parallel, 6) << '\n';
  };
  row("<whole run>", s.run, s.eff);
  for (const auto& g : s.regions) row(g.path, g.p, g.eff);
}

}  // namespace omprof::ranks
