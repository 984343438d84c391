#include "viewer/mpi_sites.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "omp/states.h"
#include "proto/mpi_calls.h"
#include "viewer/export.h"
#include "viewer/model.h"

namespace omprof::viewer {

namespace {

MpiSite site_of(uint32_t state, const omp::Frame* caller, std::string region) {
  MpiSite s;
  s.call = format::mpi_call_of(state);
  if (caller) {
    s.function = caller->name;
    s.file = caller->file;
    s.line = caller->line;
  }
  s.region = std::move(region);
  return s;
}

// The site a sample inside MPI belongs to: the exact wait's site with the same call, caller
// function, line and region; else (a return address on the line after the call) the busiest
// site of the same call, function and region; a sample whose stack did not reach the caller
// goes to the call's only site in its region, if there is one; else its own site, no calls.
MpiSite match_site(const std::map<MpiSite, MpiSiteNumbers>& sites, const MpiSite& s) {
  if (sites.count(s)) return s;
  const MpiSite* best = nullptr;
  uint64_t best_wall = 0;
  size_t same_call = 0;
  const MpiSite* only = nullptr;
  for (const auto& [site, n] : sites) {
    if (site.call != s.call || site.region != s.region || n.calls == 0) continue;
    ++same_call;
    only = &site;
    if (site.function == s.function && (!best || n.wall_ns > best_wall)) {
      best = &site;
      best_wall = n.wall_ns;
    }
  }
  if (best) return *best;
  if (s.function.empty() && same_call == 1) return *only;
  return s;
}

}  // namespace

RankMpiSites mpi_sites(const format::Profile& p) {
  RankMpiSites r;
  r.rank = p.header.mpi_rank();
  r.period_ns = p.header.period_ns();
  r.exact = p.header.mpi_calls_exact();
  r.cpu = p.header.mpi_cpu_exact()             ? MpiCpu::kExact
          : p.header.clock() != v1::CLOCK_WALL ? MpiCpu::kSampled
                                               : MpiCpu::kNone;
  ProfileFrames frames(p);
  std::unordered_map<uint64_t, omp::FrameStack> raw_cache;
  auto raw_of = [&](uint64_t id) -> const omp::FrameStack& {
    auto it = raw_cache.find(id);
    if (it == raw_cache.end()) it = raw_cache.emplace(id, frames.stack(id)).first;
    return it->second;
  };
  std::unordered_map<uint64_t, std::string> paths;
  auto path_of = [&](uint64_t node) -> const std::string& {
    auto it = paths.find(node);
    if (it == paths.end()) it = paths.emplace(node, region_path(p, node)).first;
    return it->second;
  };
  // Exact calls first (their call site is the wait's one-frame stack), then the samples.
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    for (const v1::Sample& w : t.wait()) {
      if (!omp::is_mpi(w.omp_state())) continue;
      const omp::FrameStack& at = raw_of(w.stack_id());
      MpiSiteNumbers& n = r.sites[site_of(w.omp_state(), at.empty() ? nullptr : &at.front(),
                                          path_of(w.region_node()))];
      n.calls += w.count();
      n.wall_ns += w.weight_ns();
      n.cpu_ns += w.cpu_ns();
    }
  }
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;
    for (const v1::Sample& s : t.sample()) {
      if (!omp::is_mpi(s.omp_state())) continue;
      const MpiSite own = site_of(s.omp_state(), mpi_caller(raw_of(s.stack_id()), s.omp_state()),
                                  path_of(s.region_node()));
      MpiSiteNumbers& n = r.sites[match_site(r.sites, own)];
      n.samples += s.count();
      n.sampled_ns += s.weight_ns();
    }
  }
  return r;
}

namespace {

struct MergedSite {
  const MpiSite* site = nullptr;
  int64_t ranks = 0;
  uint64_t calls = 0, samples = 0;
  double wall_sum = 0, wall_min = 0, wall_max = 0, cpu_sum = 0, cpu_var = 0;
  int64_t wall_max_rank = -1;
};

std::string site_text(const MpiSite& s) {
  if (s.function.empty()) return "<unknown caller>";
  if (s.file.empty()) return s.function;
  return s.function + " (" + s.file + (s.line ? ":" + std::to_string(s.line) : "") + ")";
}

// MPI calls are short: microseconds matter.
std::string secs(double ns) {
  return fmt::format("{:.6f}", ns / 1e9);
}

std::string call_text(uint32_t call) {
  const char* name = format::mpi_call_name(call);
  return name ? name : "MPI call " + std::to_string(call);
}

// How the CPU time of all the ranks is known: exact only if every rank measured it.
MpiCpu common_cpu(const std::vector<RankMpiSites>& ranks) {
  bool all_exact = !ranks.empty(), all_known = !ranks.empty();
  for (const RankMpiSites& r : ranks) {
    all_exact &= r.cpu == MpiCpu::kExact;
    all_known &= r.cpu != MpiCpu::kNone;
  }
  return all_exact ? MpiCpu::kExact : all_known ? MpiCpu::kSampled : MpiCpu::kNone;
}

std::map<MpiSite, MergedSite> merge(const std::vector<RankMpiSites>& ranks, MpiCpu cpu) {
  std::map<MpiSite, MergedSite> merged;
  for (const RankMpiSites& r : ranks)
    for (const auto& [site, n] : r.sites) {
      MergedSite& m = merged[site];
      m.site = &site;
      const double wall = double(n.wall_ns);
      if (m.ranks == 0 || wall < m.wall_min) m.wall_min = wall;
      if (m.ranks == 0 || wall > m.wall_max) {
        m.wall_max = wall;
        m.wall_max_rank = r.rank;
      }
      ++m.ranks;
      m.calls += n.calls;
      m.samples += n.samples;
      m.wall_sum += wall;
      if (cpu == MpiCpu::kExact) {
        m.cpu_sum += double(n.cpu_ns);
      } else if (cpu == MpiCpu::kSampled) {
        // Each sample stands for one period of CPU time: a count of independent ticks, so its
        // standard error is sqrt(count) periods (ranks add variances).
        m.cpu_sum += double(n.sampled_ns);
        m.cpu_var += double(n.samples) * double(r.period_ns) * double(r.period_ns);
      }
    }
  return merged;
}

Table sites_table(const std::vector<const MergedSite*>& rows, MpiCpu cpu, double total_wall) {
  const char* source = cpu == MpiCpu::kExact     ? "exact"
                       : cpu == MpiCpu::kSampled ? "sampled"
                                                 : "none";
  Table t({"ranks", "calls", "wall_s", "wall_min_s", "wall_avg_s", "wall_max_s", "max_rank",
           "mean_us", "mpi_wall%", "cpu_s", "cpu_err_s", "cpu_source", "<call", "<site",
           "<region"});
  for (const MergedSite* m : rows) {
    const double wall_avg = m->ranks ? m->wall_sum / double(m->ranks) : 0;
    const bool known = cpu != MpiCpu::kNone;
    t.row({std::to_string(m->ranks), std::to_string(m->calls), secs(m->wall_sum), secs(m->wall_min),
           secs(wall_avg), secs(m->wall_max), std::to_string(m->wall_max_rank),
           m->calls ? fmt::format("{:.1f}", m->wall_sum / double(m->calls) / 1e3) : "-",
           percent(m->wall_sum, total_wall), known ? secs(m->cpu_sum) : "-",
           cpu == MpiCpu::kSampled ? secs(std::sqrt(m->cpu_var))
           : known                 ? secs(0)
                                   : "-",
           source, call_text(m->site->call), site_text(*m->site),
           m->site->region.empty() ? "-" : m->site->region});
  }
  return t;
}

}  // namespace

Table mpi_sites_table(const std::vector<RankMpiSites>& ranks, size_t top) {
  const MpiCpu cpu = common_cpu(ranks);
  if (std::none_of(ranks.begin(), ranks.end(), [](const RankMpiSites& r) { return r.exact; }))
    return sites_table({}, cpu, 0);  // nothing measured: no rows
  const std::map<MpiSite, MergedSite> merged = merge(ranks, cpu);
  std::vector<const MergedSite*> rows;
  double total_wall = 0;
  for (const auto& [site, m] : merged) {
    rows.push_back(&m);
    total_wall += m.wall_sum;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const MergedSite* a, const MergedSite* b) {
    return a->wall_sum > b->wall_sum;
  });
  if (top && rows.size() > top) rows.resize(top);
  return sites_table(rows, cpu, total_wall);
}

void print_mpi_sites(std::ostream& out, const std::vector<RankMpiSites>& ranks, size_t top,
                     Format format) {
  const bool any_exact =
      std::any_of(ranks.begin(), ranks.end(), [](const RankMpiSites& r) { return r.exact; });
  if (format == Format::kText) {
    if (!any_exact) {
      // A view for data the profile lacks says so (machine-readable: the header alone).
      out << "No time in MPI was measured: the program made no MPI call omprof intercepts, or "
             "ran with --mpi=off.\n";
      return;
    }
    const MpiCpu cpu = common_cpu(ranks);
    out << "Time in MPI by call site (" << ranks.size() << (ranks.size() == 1 ? " rank" : " ranks")
        << "; wall time exact; CPU time "
        << (cpu == MpiCpu::kExact     ? "exact (--mpi-cpu)"
            : cpu == MpiCpu::kSampled ? "sampled, +- one standard error"
                                      : "unknown (wall-clock sampling; use --mpi-cpu)")
        << "):\n";
  }
  mpi_sites_table(ranks, top).print(out, format);
}

}  // namespace omprof::viewer
