#include "collector/handler/intervals.h"

#include "collector/handler/sample_measures.h"
#include "collector/handler/thread_state.h"
#include "proto/timeline.h"

namespace omprof::handler {

namespace {

// The record for `mono_ns` (coarsening the ring until it fits); nullptr before the ring's origin.
// The hint makes the common case (the same interval as the last time) a comparison: a division
// per fork, join and barrier wait cost fine-grained programs measurably (bench/tiny_regions.sh).
journal::IntervalRecord* record_at(journal::IntervalRing* ring, uint64_t mono_ns, uint32_t* index) {
  if (mono_ns < ring->origin_mono_ns) return nullptr;
  const uint64_t since = mono_ns - ring->origin_mono_ns;
  if (since >= ring->hint_from_ns && since < ring->hint_to_ns) {
    *index = ring->hint_index;
    return &ring->records[*index];
  }
  while (since / ring->interval_ns >= ring->capacity) coarsen_intervals(ring);
  *index = uint32_t(since / ring->interval_ns);
  if (*index >= ring->used) ring->used = *index + 1;
  ring->hint_index = *index;
  ring->hint_from_ns = uint64_t(*index) * ring->interval_ns;
  ring->hint_to_ns = ring->hint_from_ns + ring->interval_ns;
  return &ring->records[*index];
}

void keep_context(journal::IntervalRecord& r, const journal::SampleContext& ctx) {
  r.last_state = ctx.omp_state;
  r.fork_id = ctx.fork_id;
  r.region_node = ctx.region_node;
}

bool usable(const journal::IntervalRing* ring) {
  return ring && ring->capacity == journal::kIntervalCapacity;
}

}  // namespace

void init_interval_ring(journal::IntervalRing* ring, uint64_t interval_ns,
                        uint64_t origin_mono_ns) {
  ring->capacity = journal::kIntervalCapacity;
  ring->interval_ns = interval_ns ? interval_ns : 1;
  ring->origin_mono_ns = origin_mono_ns;
}

void coarsen_intervals(journal::IntervalRing* ring) {
  const uint32_t half = (ring->used + 1) / 2;
  for (uint32_t i = 0; i < half; ++i) {
    const journal::IntervalRecord a = ring->records[2 * i];
    const journal::IntervalRecord b =
        2 * i + 1 < ring->used ? ring->records[2 * i + 1] : journal::IntervalRecord{};
    ring->records[i] = timeline::merged(a, b);
  }
  for (uint32_t i = half; i < ring->used; ++i) ring->records[i] = journal::IntervalRecord{};
  ring->used = half;
  ring->hint_from_ns = ring->hint_to_ns = 0;  // the hint's record moved
  ring->interval_ns *= 2;
  ring->coarsenings += 1;
}

void add_to_interval(journal::IntervalRing* ring, uint64_t mono_ns, uint32_t timeline_class,
                     uint64_t weight_ns, const journal::SampleContext& ctx,
                     const uint64_t* counters, uint32_t slot) {
  if (!usable(ring) || mono_ns < ring->origin_mono_ns) return;
  journal::RingChange changing(ring->seq);
  uint32_t i = 0;
  journal::IntervalRecord* r = record_at(ring, mono_ns, &i);
  if (!r) return;
  // A sample that repeats a measured wait is counted, its time is the measured ring's.
  if (!sample_repeats_measured(ctx.omp_state))
    r->ns[timeline_class < journal::kTimelineClasses ? timeline_class : timeline::kOther] +=
        weight_ns;
  r->samples += 1;
  if (counters)
    for (size_t k = 0; k < journal::kMaxCounters; ++k) r->counters[k] += counters[k];
  if (slot != kNoSlot) timeline::pick_lead(*r, r->samples, slot, ring->lead_random);
  keep_context(*r, ctx);
}

void add_measured_to_intervals(journal::IntervalRing* ring, uint64_t end_mono_ns, uint64_t ns,
                               const journal::SampleContext& ctx) {
  if (!usable(ring) || ns == 0 || end_mono_ns <= ring->origin_mono_ns) return;
  journal::RingChange changing(ring->seq);
  const uint32_t cls = timeline::class_of(ctx.omp_state);
  uint32_t i = 0;
  journal::IntervalRecord* last = record_at(ring, end_mono_ns - 1, &i);
  if (!last) return;
  keep_context(*last, ctx);
  last->samples += 1;
  uint64_t end = end_mono_ns - ring->origin_mono_ns, left = ns;
  if (left <= end - ring->hint_from_ns) {  // within the last interval (record_at's hint)
    last->ns[cls] += left;
    return;
  }
  // From the end backwards, each interval its part (the ring does not coarsen meanwhile: the
  // last record fits, and the earlier ones come before it).
  for (uint32_t k = i + 1; k-- > 0 && left > 0;) {
    const uint64_t from = uint64_t(k) * ring->interval_ns;
    const uint64_t part = left < end - from ? left : end - from;
    ring->records[k].ns[cls] += part;
    left -= part;
    end = from;
  }
  // Before the run's start (a wait the collector saw begin before its clock started): the first.
  if (left) ring->records[0].ns[cls] += left;
}

void place_measured(ThreadState* ts, uint64_t end_mono_ns, uint64_t ns,
                    const journal::SampleContext& ctx) {
  ts->measured_total_ns += ns;
  add_measured_to_intervals(ts->measured, end_mono_ns, ns, ctx);
}

uint64_t measured_so_far_ns(const ThreadState* ts, uint64_t now_mono_ns) {
  uint64_t since = ts->omp.ompt.measured_open_since_ns;
  if (ts->mpi_call.load(std::memory_order_relaxed) != 0) since = ts->mpi_call_start_mono_ns;
  const uint64_t open = since && now_mono_ns > since ? now_mono_ns - since : 0;
  return ts->measured_total_ns + open;
}

uint32_t timeline_class_of(const ThreadState* ts, const journal::SampleContext& ctx) {
  if (ctx.omp_state == format::kInTaskwait && ts->omp.ompt.taskwait_depth > 0 &&
      ts->omp.ompt.taskwait_depth <= kMaxTaskwaitBrackets && ts->omp.ompt.current_task &&
      ts->omp.ompt.current_task !=
          ts->omp.ompt.taskwait_brackets[ts->omp.ompt.taskwait_depth - 1].task)
    return timeline::kWork;
  return timeline::class_of(ctx.omp_state);
}

}  // namespace omprof::handler
