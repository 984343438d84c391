#include "collector/openmp/events.h"

#include "collector/handler/idle_workers.h"
#include "collector/handler/intervals.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/openmp/fork_records.h"
#include "collector/openmp/fork_walls.h"
#include "collector/openmp/member_counters.h"
#include "collector/runtime.h"
#include "proto/state_codes.h"

namespace omprof::openmp {

namespace pv = handler::parallel_value;

Forked fork(ThreadState* ts, const void* codeptr_ra, const void* enter_frame, unsigned team_size,
            BarrierTiming timing) {
  Forked f;
  f.value = openmp::begin_parallel_region(codeptr_ra, enter_frame);
  f.now_ns = monotonic_ns();
  if (timing == BarrierTiming::kArrivals)
    handler::note_region_fork(pv::instance(f.value), f.now_ns);
  // The thread's last region at this depth (the regions it forked and has not joined): its team,
  // reused, is woken by this fork.
  const uint32_t depth = ts ? ts->omp.fork_depth : handler::kMaxForkNesting;
  if (depth < handler::kMaxForkNesting) {
    if (const uint64_t last = ts->omp_process.last_fork_value[depth])
      handler::note_next_fork(pv::instance(last), f.now_ns, pv::instance(f.value),
                              pv::fork_id(f.value), team_size);
    ts->omp_process.last_fork_value[depth] = f.value;
  }
  openmp::note_fork_time(ts, f.now_ns);
  return f;
}

void member_begin(ThreadState* ts, uint64_t value, unsigned index, unsigned team_size,
                  uint64_t construct, uint64_t now_ns, BarrierTiming timing) {
  if (ts) {
    ts->is_omp_thread = true;
    ts->omp.thread_num = index;
    // (OMPT counts its workers when they start: thread_begin.)
    if (index != 0 && !ts->omp_process.counted_worker) handler::count_omp_worker(ts);
  }
  if (timing == BarrierTiming::kArrivals)
    handler::note_member_begun(pv::instance(value), team_size, now_ns);
  openmp::begin_team_member(value, index, team_size);
  if (ts && openmp::member_counts::on())
    openmp::member_counts::begin(ts, pv::fork_id(value), pv::instance(value), index == 0,
                                 construct);
}

void member_end(ThreadState* ts, uint32_t instance, uint64_t now_ns, BarrierTiming timing) {
  if (timing == BarrierTiming::kArrivals) handler::note_member_ended(instance, now_ns);
  if (ts && ts->omp_process.member_depth) openmp::member_counts::end(ts, instance);
}

void join(ThreadState* ts, uint64_t value, uint64_t now_ns) {
  handler::note_region_end(pv::instance(value), now_ns);
  openmp::note_join_time(ts, pv::fork_id(value), now_ns);
}

void record_wait(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                 uint64_t end_ns) {
  count_wait(ts, codeptr, ctx, ns);
  place_wait(ts, end_ns, ns, ctx);
}

void count_wait(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns) {
  ts->waits.add_site(codeptr, ctx, 1, ns);
}

void place_wait(ThreadState* ts, uint64_t end_ns, uint64_t ns, const SampleContext& ctx) {
  if (ns) handler::place_measured(ts, end_ns, ns, ctx);
}

void record_overhead(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                     uint64_t end_ns) {
  SampleContext c = ctx;
  c.omp_state = format::kOverhead;
  record_wait(ts, codeptr, c, ns, end_ns);
}

}  // namespace omprof::openmp
