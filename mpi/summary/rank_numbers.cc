#include "mpi/summary/rank_numbers.h"

#include <algorithm>

#include "omp/states.h"
#include "proto/mpi_calls.h"
#include "regions/off_cpu.h"

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

RankBuilder::RankBuilder(bool exact_waits, bool cpu_clock, uint64_t duration_ns)
    : exact_waits_(exact_waits),
      cpu_clock_(cpu_clock),
      duration_ns_(duration_ns),
      window_end_ns_(duration_ns) {}

void RankBuilder::set_window(uint64_t start_ns, uint64_t end_ns) {
  window_start_ns_ = std::min(start_ns, duration_ns_);
  window_end_ns_ =
      std::max(window_start_ns_, std::min(end_ns ? end_ns : duration_ns_, duration_ns_));
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

void RankBuilder::sample(uint32_t state, uint64_t region_node, uint64_t count, uint64_t weight_ns) {
  samples_.push_back({state, region_node, count, weight_ns});
}

void RankBuilder::wait(uint32_t state, uint64_t region_node, uint64_t weight_ns) {
  waits_.push_back({state, region_node, 0, weight_ns});
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
  std::map<uint64_t, std::vector<const Item*>> work;  // by region node
  std::vector<const Item*> all_work;
  auto account = [&](const Item& x) {
    accounted += x.weight_ns;
    accounted_by_node[x.node] += x.weight_ns;
  };
  for (const Item& s : samples_) {
    if (mpi_exact && omp::is_mpi(s.state)) continue;  // repeats an exact MPI wait
    if (is_setup(s.state)) {
      setup_ns_ += s.weight_ns;
      sample_count_ += s.count;
      account(s);
      continue;
    }
    if (exact_waits_ && omp::is_measured_exactly(s.state, taskwait_exact_))
      continue;  // repeats an exact wait
    if (off_cpu_waits_ && omp::is_measured_whole_on_libgomp(s.state)) continue;  // the same
    add(s.node, s.state, s.weight_ns);
    sample_count_ += s.count;
    account(s);
    // Off-CPU time spreads over what the thread was doing on the CPU: work, and sampled waits
    // (a taskwait, sampled since format 1.7), which stay waits off the CPU; on libgomp not over
    // the waits whose time off the CPU was measured.
    if (off_cpu_waits_ && omp::off_cpu_measured_on_libgomp(s.state)) continue;
    work[s.node].push_back(&s);
    all_work.push_back(&s);
  }
  for (const Item& w : waits_) {
    if (!omp::is_mpi(w.state) && !exact_waits_ && !off_cpu_waits_) continue;
    account(w);
    if (is_setup(w.state))
      setup_ns_ += w.weight_ns;
    else
      add(w.node, w.state, w.weight_ns);
  }
  if (!cpu_clock_ || !(exact_waits_ || off_cpu_waits_ || mpi_exact)) return;
  const uint64_t end = end_ns_ ? end_ns_ : duration_ns_;
  const uint64_t life = end > start_ns_ ? end - start_ns_ : 0;
  if (life <= accounted) return;
  // Placed and split exactly as the viewer's model does (viewer/model.cc, add_off_cpu_time).
  const regions::OffCpuShares shares =
      regions::place_off_cpu(life - accounted, self_wall_, accounted_by_node);
  auto spread = [&](const std::vector<const Item*>& over, uint64_t node, uint64_t ns) {
    std::vector<uint64_t> weights;
    uint64_t over_ns = 0;
    for (const Item* x : over) {
      weights.push_back(x->weight_ns);
      over_ns += x->weight_ns;
    }
    if (over_ns == 0) {
      add(node, omp::kStateOffCpu, ns);
      return;
    }
    const std::vector<uint64_t> parts = regions::proportional_parts(ns, weights);
    for (size_t k = 0; k < over.size(); ++k)
      add(over[k]->node,
          omp::keeps_off_cpu_time(over[k]->state) ? over[k]->state : omp::kStateOffCpu, parts[k]);
  };
  for (const auto& [node, ns] : shares.by_node) spread(work[node], node, ns);
  if (shares.outside_ns) {
    const auto outside = work.find(0);
    const bool own_outside = !self_wall_.empty() && outside != work.end();
    spread(own_outside ? outside->second : all_work, 0, shares.outside_ns);
  }
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
