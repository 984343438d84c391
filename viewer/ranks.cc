#include "viewer/ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "omp/states.h"
#include "viewer/regions_view.h"

namespace omprof::viewer {

namespace {

void add_to(TimeSplit& t, uint32_t state, uint64_t ns) {
  if (omp::is_mpi(state))
    t.mpi_wait_ns += ns;
  else if (omp::is_wait(state))
    t.omp_wait_ns += ns;
  else
    t.work_ns += ns;
}

// Every region path some rank ran, in canonical (sorted) order.
std::set<std::string> union_of_paths(const std::vector<RankNumbers>& ranks) {
  std::set<std::string> paths;
  for (const auto& r : ranks)
    for (const auto& [path, x] : r.regions) paths.insert(path);
  return paths;
}

std::string fraction(double v) {
  return fmt::format("{:.3f}", v);
}

}  // namespace

double TimeSplit::computation_ns(double elapsed_ns) const {
  return total_ns() ? elapsed_ns * double(work_ns) / double(total_ns()) : 0;
}

double TimeSplit::outside_mpi_ns(double elapsed_ns) const {
  return total_ns() ? elapsed_ns * double(total_ns() - mpi_wait_ns) / double(total_ns()) : 0;
}

RankNumbers rank_numbers(const Model& m) {
  const format::Profile& p = *m.profile;
  RankNumbers r;
  r.rank = p.header.mpi_rank();
  r.file = p.path;
  r.elapsed_ns = p.header.duration_ns();
  r.samples = m.total_samples;
  for (const auto& [i, t] : p.threads)
    if (!t.mpi_library_thread()) ++r.threads;
  for (const auto& s : m.samples) add_to(r.split, s.state, s.weight_ns);
  // Region paths from the region tree (rows in preorder, parents first).
  std::map<uint32_t, std::string> path_of;
  for (const RegionRow& row : region_rows(m)) {
    const auto& x = row.timing;
    if (x.node == 0) continue;
    const auto parent = path_of.find(x.parent);
    const std::string path = parent == path_of.end() ? x.name : parent->second + "/" + x.name;
    path_of[x.node] = path;
    RankRegion& rr = r.regions[path];
    rr.calls += x.calls;
    rr.incl_ns = std::max(rr.incl_ns, uint64_t(std::max<int64_t>(0, x.wall_max_ns)));
    rr.self_ns = std::max(rr.self_ns, uint64_t(std::max<int64_t>(0, x.self_max_ns)));
    rr.split.work_ns += row.work_ns;
    rr.split.mpi_wait_ns += row.mpi_ns;
    rr.split.omp_wait_ns += row.wait_ns - std::min(row.wait_ns, row.mpi_ns);
  }
  return r;
}

Efficiencies efficiencies(const std::vector<double>& computation_ns,
                          const std::vector<double>& outside_mpi_ns, double elapsed_ns) {
  Efficiencies e;
  if (computation_ns.empty() || elapsed_ns <= 0) return e;
  double sum = 0, max = 0, outside = 0;
  for (double c : computation_ns) {
    sum += c;
    max = std::max(max, c);
  }
  for (double o : outside_mpi_ns) outside += o;
  const double avg = sum / double(computation_ns.size());
  e.load_balance = max > 0 ? avg / max : 0;
  e.communication = max / elapsed_ns;
  e.parallel = e.load_balance * e.communication;
  e.mpi_parallel = outside / double(outside_mpi_ns.size()) / elapsed_ns;
  e.omp_parallel = e.mpi_parallel > 0 ? e.parallel / e.mpi_parallel : 0;
  return e;
}

std::vector<ReducedRegion> reduce_regions(const std::vector<RankNumbers>& ranks) {
  std::vector<ReducedRegion> out;
  for (const std::string& path : union_of_paths(ranks)) {
    ReducedRegion red;
    red.path = path;
    std::vector<double> comp, outside;
    double incl_sum = 0, comp_sum = 0, self_sum = 0, calls_sum = 0, omp_sum = 0, mpi_sum = 0;
    for (const auto& r : ranks) {
      const auto it = r.regions.find(path);
      if (it == r.regions.end()) continue;  // not zero-filled: the rank never ran it
      const RankRegion& x = it->second;
      const double incl = double(x.incl_ns), c = x.split.computation_ns(incl);
      red.ranks.push_back(r.rank);
      if (red.incl_min_rank < 0 || incl < red.incl_min)
        red.incl_min = incl, red.incl_min_rank = r.rank;
      if (red.incl_max_rank < 0 || incl > red.incl_max)
        red.incl_max = incl, red.incl_max_rank = r.rank;
      if (red.comp_min_rank < 0 || c < red.comp_min) red.comp_min = c, red.comp_min_rank = r.rank;
      if (red.comp_max_rank < 0 || c > red.comp_max) red.comp_max = c, red.comp_max_rank = r.rank;
      incl_sum += incl;
      comp_sum += c;
      self_sum += double(x.self_ns);
      calls_sum += double(x.calls);
      omp_sum += double(x.split.omp_wait_ns);
      mpi_sum += double(x.split.mpi_wait_ns);
      comp.push_back(c);
      outside.push_back(x.split.outside_mpi_ns(incl));
    }
    const double n = double(red.ranks.size());
    red.incl_avg = incl_sum / n;
    red.comp_avg = comp_sum / n;
    red.self_avg = self_sum / n;
    red.calls_avg = calls_sum / n;
    red.omp_wait_avg = omp_sum / n;
    red.mpi_wait_avg = mpi_sum / n;
    red.eff = efficiencies(comp, outside, red.incl_max);
    out.push_back(std::move(red));
  }
  return out;
}

std::vector<int> ranks_missing_paths(const std::vector<RankNumbers>& ranks) {
  const std::set<std::string> all = union_of_paths(ranks);
  std::vector<int> out;
  for (const auto& r : ranks)
    if (r.regions.size() != all.size()) out.push_back(r.rank);
  return out;
}

void print_ranks_summary(std::ostream& out, const std::vector<RankNumbers>& ranks) {
  std::vector<double> comp, outside;
  double elapsed = 0;
  TimeSplit total;
  for (const auto& r : ranks) elapsed = std::max(elapsed, double(r.elapsed_ns));
  for (const auto& r : ranks) {
    comp.push_back(r.split.computation_ns(double(r.elapsed_ns)));
    outside.push_back(r.split.outside_mpi_ns(double(r.elapsed_ns)));
    total.work_ns += r.split.work_ns;
    total.omp_wait_ns += r.split.omp_wait_ns;
    total.mpi_wait_ns += r.split.mpi_wait_ns;
  }
  const Efficiencies e = efficiencies(comp, outside, elapsed);
  uint32_t threads = 0;
  for (const auto& r : ranks) threads += r.threads;
  out << fmt::format("Ranks:     {} profiles, {} threads, elapsed {} s (longest rank)\n",
                     ranks.size(), threads, seconds(uint64_t(elapsed)));
  out << fmt::format("Time:      work {}%, OpenMP wait {}%, MPI wait {}% of {} s thread time\n",
                     percent(double(total.work_ns), double(total.total_ns())),
                     percent(double(total.omp_wait_ns), double(total.total_ns())),
                     percent(double(total.mpi_wait_ns), double(total.total_ns())),
                     seconds(total.total_ns()));
  out << fmt::format(
      "POP:       parallel efficiency {} = load balance {} x communication efficiency {}; "
      "MPI parallel efficiency {}, OpenMP parallel efficiency {}\n",
      fraction(e.parallel), fraction(e.load_balance), fraction(e.communication),
      fraction(e.mpi_parallel), fraction(e.omp_parallel));
  const std::vector<int> differ = ranks_missing_paths(ranks);
  if (!differ.empty()) {
    std::string list;
    for (int r : differ) list += (list.empty() ? "" : ",") + std::to_string(r);
    out << fmt::format("Regions:   ranks {} lack region paths other ranks have (not strict)\n",
                       list);
  }
}

Table ranks_table(const std::vector<RankNumbers>& ranks) {
  Table t({"rank", "threads", "samples", "elapsed_s", "computation_s", "work_s", "omp_wait_s",
           "mpi_wait_s", "work%", "omp_wait%", "mpi_wait%", "<file"});
  for (const auto& r : ranks) {
    const double total = double(r.split.total_ns());
    t.row({std::to_string(r.rank), std::to_string(r.threads), std::to_string(r.samples),
           seconds(r.elapsed_ns), seconds(uint64_t(r.split.computation_ns(double(r.elapsed_ns)))),
           seconds(r.split.work_ns), seconds(r.split.omp_wait_ns), seconds(r.split.mpi_wait_ns),
           percent(double(r.split.work_ns), total), percent(double(r.split.omp_wait_ns), total),
           percent(double(r.split.mpi_wait_ns), total), r.file});
  }
  return t;
}

Table reduced_regions_table(const std::vector<ReducedRegion>& regions, size_t rank_count,
                            Format format) {
  Table t({"ranks", "incl_min_s", "incl_avg_s", "incl_max_s", "min_rank", "max_rank", "comp_min_s",
           "comp_avg_s", "comp_max_s", "comp_max_rank", "self_avg_s", "calls_avg", "omp_wait_avg_s",
           "mpi_wait_avg_s", "load_balance", "comm_eff", "parallel_eff", "<region"});
  for (const auto& r : regions) {
    std::string ranks = format == Format::kCsv
                            ? ""
                            : std::to_string(r.ranks.size()) + "/" + std::to_string(rank_count);
    if (format == Format::kCsv)
      for (int k : r.ranks) ranks += (ranks.empty() ? "" : " ") + std::to_string(k);
    t.row({ranks, seconds(uint64_t(r.incl_min)), seconds(uint64_t(r.incl_avg)),
           seconds(uint64_t(r.incl_max)), std::to_string(r.incl_min_rank),
           std::to_string(r.incl_max_rank), seconds(uint64_t(r.comp_min)),
           seconds(uint64_t(r.comp_avg)), seconds(uint64_t(r.comp_max)),
           std::to_string(r.comp_max_rank), seconds(uint64_t(r.self_avg)),
           fmt::format("{:.1f}", r.calls_avg), seconds(uint64_t(r.omp_wait_avg)),
           seconds(uint64_t(r.mpi_wait_avg)), fraction(r.eff.load_balance),
           fraction(r.eff.communication), fraction(r.eff.parallel), r.path});
  }
  return t;
}

}  // namespace omprof::viewer
