#include "collector/openmp/fork_walls.h"

#include "collector/openmp/fork_records.h"

namespace omprof::openmp {

void note_fork_time(handler::ThreadState* ts, uint64_t now_ns) {
  if (!ts) return;
  if (ts->omp.fork_depth < handler::kMaxForkNesting)
    ts->omp_process.fork_start_ns[ts->omp.fork_depth] = now_ns;
  ++ts->omp.fork_depth;
}

void note_join_time(handler::ThreadState* ts, uint64_t fork_id, uint64_t now_ns) {
  if (!ts || ts->omp.fork_depth == 0) return;  // forked before omprof knew the thread
  const uint32_t depth = --ts->omp.fork_depth;
  if (depth >= handler::kMaxForkNesting) return;  // nested too deep to be timed
  const uint64_t start = ts->omp_process.fork_start_ns[depth];
  const uint64_t wall = now_ns > start ? now_ns - start : 0;
  if (depth == 0) ts->parallel_wall_ns += wall;
  if (!fork_id) return;
  // Added to the record when the thread joins another construct (a loop around one construct
  // touches the shared record once), and at the end by fork_snapshots.
  if (fork_id != ts->wall_fork_id) {
    if (ts->wall_fork_id) add_fork_wall(ts->wall_fork_id, ts->wall_unflushed_ns);
    ts->wall_fork_id = fork_id;
    ts->wall_unflushed_ns = 0;
  }
  ts->wall_unflushed_ns += wall;
}

}  // namespace omprof::openmp
