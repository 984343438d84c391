#include "collector/openmp/member_counters.h"

#include <atomic>

#include "collector/handler/counter_read.h"
#include "collector/openmp/fork_records.h"
#include "collector/region_context.h"

namespace omprof::openmp::member_counts {

namespace {

std::atomic<uint64_t> g_lost{0};

void drop(uint64_t parts) {
  if (parts) g_lost.fetch_add(parts, std::memory_order_relaxed);
}

}  // namespace

bool on() {
  static const bool measured = region_counters_measured();
  return measured;
}

void begin(ThreadState* ts, uint64_t fork_id, uint32_t instance, bool master, uint64_t construct) {
  if (!on() || !ts || !fork_id) return;
  // An outermost region's member is in no other region: parts still open missed their end.
  if (ts->omp_process.member_depth && is_outermost_fork(fork_id)) {
    drop(ts->omp_process.member_depth);
    ts->omp_process.member_depth = 0;
  }
  const uint32_t depth = ts->omp_process.member_depth++;
  if (depth >= handler::kMaxForkNesting) return;
  handler::OmpProcessState::MemberCounts& m = ts->omp_process.member_counts[depth];
  m.fork_id = fork_id;
  m.instance = instance;
  m.master = master;
  m.construct = construct;
  if (!handler::read_counter_group(ts, m.start)) m.fork_id = 0;  // not counted
}

bool ends_member(const ThreadState* ts, uint32_t instance, uint64_t construct) {
  if (!ts->omp_process.member_depth || ts->omp_process.member_depth > handler::kMaxForkNesting)
    return ts->omp_process.member_depth > 0;
  const handler::OmpProcessState::MemberCounts& m =
      ts->omp_process.member_counts[ts->omp_process.member_depth - 1];
  return m.instance == instance && (m.master ? construct == m.construct : construct == 0);
}

void end(ThreadState* ts, uint32_t instance) {
  if (!ts || ts->omp_process.member_depth == 0) return;
  // Beyond the table: the part is not counted (nor are the ones it holds).
  if (ts->omp_process.member_depth > handler::kMaxForkNesting) {
    --ts->omp_process.member_depth;
    drop(1);
    return;
  }
  uint32_t at = ts->omp_process.member_depth;
  while (at > 0 && ts->omp_process.member_counts[at - 1].instance != instance) --at;
  if (at == 0) return;                      // not a region this thread is a member of
  drop(ts->omp_process.member_depth - at);  // nested parts that never arrived at their end
  ts->omp_process.member_depth = at - 1;
  const handler::OmpProcessState::MemberCounts& m = ts->omp_process.member_counts[at - 1];
  uint64_t now[journal::kMaxCounters] = {};
  if (!m.fork_id || !handler::read_counter_group(ts, now)) {
    drop(1);
    return;
  }
  uint64_t counts[journal::kMaxCounters] = {};
  for (uint32_t i = 0; i < ts->counter_count && i < journal::kMaxCounters; ++i)
    counts[i] = now[i] > m.start[i] ? now[i] - m.start[i] : 0;
  add_fork_counters(m.fork_id, counts, ts->counter_count);
}

uint64_t lost() {
  return g_lost.load(std::memory_order_relaxed);
}

}  // namespace omprof::openmp::member_counts
