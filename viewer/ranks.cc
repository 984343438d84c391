#include "viewer/ranks.h"

#include <map>
#include <unordered_map>

#include "omp/states.h"
#include "omp/user_model.h"
#include "proto/mpi_calls.h"
#include "proto/state_codes.h"
#include "viewer/model.h"
#include "viewer/regions_view.h"
#include "viewer/state_measurement.h"

namespace omprof::viewer {

ranks::PopWindow pop_window_of(const format::Profile& p) {
  const v1::Header& h = p.header;
  for (const auto& [index, t] : p.threads) {
    const uint32_t call = format::mpi_call_of(t.now_state());
    if (call == format::kMpi_Init || call == format::kMpi_Init_thread)
      return {h.duration_ns(), h.duration_ns()};
  }
  return ranks::pop_window(h.mpi_init_end_ns(), h.mpi_finalize_start_ns(), h.duration_ns());
}

RankNumbers rank_numbers(const format::Profile& p) {
  const omp::Measurement measured = measurement_of(p.header);
  ranks::RankBuilder b(measured, p.header.duration_ns());
  const ranks::PopWindow window = pop_window_of(p);
  b.set_window(window.start_ns, window.end_ns);
  // "In taskwait" and runtime overhead depend on the stack (omp::resolve_state), as in the
  // other views; each (stack, state) is resolved once.
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> resolved;
  ProfileFrames frames(p);
  const omp::TaskConstructLines constructs = task_construct_lines(frames);
  auto state_of = [&](const v1::Sample& s) {
    const uint32_t state = s.omp_state();
    if (!omp::may_resolve(state)) return state;
    auto it = resolved.find({s.stack_id(), state});
    if (it == resolved.end())
      it = resolved
               .emplace(std::make_pair(s.stack_id(), state),
                        omp::resolve_state(frames.stack(s.stack_id()), state,
                                           measured.wrapper_states, &constructs))
               .first;
    return it->second;
  };
  std::map<uint32_t, std::map<uint64_t, uint64_t>> self_wall;  // thread -> node -> ns
  for (const auto& r : p.region_stats)
    if (r.self_wall_ns() > 0)
      self_wall[r.thread_index()][r.node_id()] += uint64_t(r.self_wall_ns());
  for (const auto& [index, t] : p.threads) {
    if (t.mpi_library_thread()) continue;  // the MPI library's, not the program's
    b.begin_thread(t.start_ns(), t.end_ns());
    for (const auto& [node, ns] : self_wall[index]) b.region_self_wall(node, ns);
    for (const auto& s : t.sample())
      b.sample(state_of(s), s.region_node(), s.count(), s.weight_ns(), s.off_cpu_seen_ns());
    for (const auto& w : t.wait()) b.wait(w.omp_state(), w.region_node(), w.weight_ns());
    b.end_thread();
  }
  RankNumbers r = b.finish(p.header.mpi_rank(), region_summary(p));
  r.file = p.path;
  return r;
}

Table ranks_table(const std::vector<RankNumbers>& ranks) {
  Table t({"rank", "threads", "samples", "elapsed_s", "setup_s", "computation_s", "work_s",
           "omp_wait_s", "mpi_wait_s", "work%", "omp_wait%", "mpi_wait%", "<file"});
  for (const auto& r : ranks) {
    const double total = double(r.split.total_ns());
    t.row({std::to_string(r.rank), std::to_string(r.threads), std::to_string(r.samples),
           seconds(r.elapsed_ns), seconds(r.setup_ns),
           seconds(r.split.computation_ns(double(r.elapsed_ns))), seconds(r.split.work_ns),
           seconds(r.split.omp_wait_ns), seconds(r.split.mpi_wait_ns),
           percent(double(r.split.work_ns), total), percent(double(r.split.omp_wait_ns), total),
           percent(double(r.split.mpi_wait_ns), total), r.file});
  }
  return t;
}

}  // namespace omprof::viewer
