#include "ranks/rank_numbers.h"

#include <algorithm>

#include "omp/states.h"
#include "proto/mpi_calls.h"

namespace omprof::ranks {

namespace {
// MPI_Init[_thread] and MPI_Finalize: outside the POP window.
bool is_setup(uint32_t state) {
  const uint32_t call = format::mpi_call_of(state);
  return call == format::kMpi_Init || call == format::kMpi_Init_thread ||
         call == format::kMpi_Finalize;
}
}  // namespace

void TimeSplit::add(uint32_t state, uint64_t ns) {
  if (omp::is_mpi(state))
    mpi_wait_ns += ns;
  else if (omp::is_wait(state))
    omp_wait_ns += ns;
  else
    work_ns += ns;
}

TimeSplit& TimeSplit::operator+=(const TimeSplit& o) {
  work_ns += o.work_ns;
  omp_wait_ns += o.omp_wait_ns;
  mpi_wait_ns += o.mpi_wait_ns;
  return *this;
}

double TimeSplit::computation_ns(double elapsed_ns) const {
  return total_ns() ? elapsed_ns * double(work_ns) / double(total_ns()) : 0;
}

double TimeSplit::outside_mpi_ns(double elapsed_ns) const {
  return total_ns() ? elapsed_ns * double(total_ns() - mpi_wait_ns) / double(total_ns()) : 0;
}

RankBuilder::RankBuilder(const omp::Measurement& measurement, uint64_t duration_ns)
    : measurement_(measurement), duration_ns_(duration_ns), window_end_ns_(duration_ns) {}

PopWindow pop_window(uint64_t init_end_ns, uint64_t finalize_start_ns, uint64_t duration_ns) {
  PopWindow w;
  w.start_ns = std::min(init_end_ns, duration_ns);
  w.end_ns = std::max(w.start_ns,
                      std::min(finalize_start_ns ? finalize_start_ns : duration_ns, duration_ns));
  return w;
}

void RankBuilder::set_window(uint64_t start_ns, uint64_t end_ns) {
  const PopWindow w = pop_window(start_ns, end_ns, duration_ns_);
  window_start_ns_ = w.start_ns;
  window_end_ns_ = w.end_ns;
}

void RankBuilder::begin_thread(uint64_t start_ns, uint64_t end_ns) {
  start_ns_ = start_ns;
  end_ns_ = end_ns;
  samples_.clear();
  waits_.clear();
  self_wall_.clear();
}

void RankBuilder::region_self_wall(uint64_t region_node, uint64_t ns) {
  self_wall_[region_node] += ns;
}

void RankBuilder::sample(uint32_t state, uint64_t region_node, uint64_t count, uint64_t weight_ns,
                         uint64_t off_cpu_seen_ns) {
  samples_.push_back({state, region_node, count, weight_ns, off_cpu_seen_ns});
}

void RankBuilder::wait(uint32_t state, uint64_t region_node, uint64_t weight_ns) {
  waits_.push_back({state, region_node, 0, weight_ns, 0});
}

void RankBuilder::add(uint64_t node, uint32_t state, uint64_t ns) {
  by_node_[node].add(state, ns);
  total_.add(state, ns);
}

void RankBuilder::end_thread() {
  ++threads_;
  const bool mpi_exact =
      std::any_of(waits_.begin(), waits_.end(), [](const Item& w) { return omp::is_mpi(w.state); });
  uint64_t accounted = 0;
  std::map<uint64_t, uint64_t> accounted_by_node;
  std::vector<omp::OffCpuDonor> donors;
  auto account = [&](const Item& x) {
    accounted += x.weight_ns;
    accounted_by_node[x.node] += x.weight_ns;
  };
  for (const Item& s : samples_) {
    const uint32_t state = omp::accounted_state(measurement_, s.state, false);
    if (omp::repeats_measured_time(measurement_, state, mpi_exact)) continue;
    sample_count_ += s.count;
    account(s);
    if (is_setup(state)) {
      setup_ns_ += s.weight_ns;
      continue;
    }
    add(s.node, state, s.weight_ns);
    if (omp::takes_off_cpu_time(measurement_, state))
      donors.push_back({s.node, state, s.weight_ns, s.off_cpu_seen_ns});
  }
  for (const Item& w : waits_) {
    if (!omp::measured_interval_counts(measurement_, w.state)) continue;
    account(w);
    if (is_setup(w.state))
      setup_ns_ += w.weight_ns;
    else
      add(w.node, omp::accounted_state(measurement_, w.state, true), w.weight_ns);
  }
  if (omp::places_off_cpu_time(measurement_, mpi_exact))
    add_off_cpu_time(accounted, accounted_by_node, donors);
}

// Placed and split as the viewer's model does: omp/accounting.h.
void RankBuilder::add_off_cpu_time(uint64_t accounted_ns,
                                   const std::map<uint64_t, uint64_t>& by_node,
                                   const std::vector<omp::OffCpuDonor>& donors) {
  const uint64_t end = end_ns_ ? end_ns_ : duration_ns_;
  const uint64_t life = end > start_ns_ ? end - start_ns_ : 0;
  if (life <= accounted_ns) return;
  for (const omp::OffCpuPart& part :
       omp::place_thread_off_cpu(life - accounted_ns, self_wall_, by_node, donors))
    add(part.node, part.state, part.ns);
}

RankNumbers RankBuilder::finish(int rank, const std::vector<regions::SummaryRow>& rows) const {
  RankNumbers r;
  r.rank = rank;
  r.elapsed_ns = window_end_ns_ - window_start_ns_;
  r.setup_ns = setup_ns_;
  r.samples = sample_count_;
  r.threads = threads_;
  r.split = total_;
  // Inclusive splits: children before parents (rows are in preorder).
  std::map<uint32_t, TimeSplit> inclusive;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    const auto own = by_node_.find(it->node);
    if (own != by_node_.end()) inclusive[it->node] += own->second;
    if (it->parent != 0) inclusive[it->parent] += inclusive[it->node];
  }
  std::map<uint32_t, std::string> path_of;
  for (const regions::SummaryRow& x : rows) {
    const auto parent = path_of.find(x.parent);
    const std::string path = parent == path_of.end() ? x.name : parent->second + "/" + x.name;
    path_of[x.node] = path;
    RankRegion& rr = r.regions[path];
    rr.calls += x.calls;
    rr.incl_ns = std::max(rr.incl_ns, uint64_t(std::max<int64_t>(0, x.wall_max_ns)));
    rr.self_ns = std::max(rr.self_ns, uint64_t(std::max<int64_t>(0, x.self_max_ns)));
    rr.split += inclusive[x.node];
  }
  return r;
}

}  // namespace omprof::ranks
