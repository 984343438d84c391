#include "collector/handler/intervals.h"

#include <atomic>

#include "collector/handler/thread_state.h"
#include "proto/timeline.h"

namespace omprof::handler {

namespace {

// Marks the ring as changing (odd) and back (even); the fences keep the record stores inside.
struct Changing {
  explicit Changing(journal::IntervalRing* r) : ring(r) {
    ring->seq.store(ring->seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  ~Changing() {
    std::atomic_thread_fence(std::memory_order_release);
    ring->seq.store(ring->seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  journal::IntervalRing* ring;
};

void merge_into(journal::IntervalRecord& to, const journal::IntervalRecord& a,
                const journal::IntervalRecord& b) {
  for (size_t c = 0; c < journal::kTimelineClasses; ++c) to.ns[c] = a.ns[c] + b.ns[c];
  to.samples = a.samples + b.samples;
  // The later record's context, if it has one.
  const journal::IntervalRecord& last = b.samples ? b : a;
  to.last_state = last.last_state;
  to.fork_id = last.fork_id;
  to.region_node = last.region_node;
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
    merge_into(ring->records[i], a, b);
  }
  for (uint32_t i = half; i < ring->used; ++i) ring->records[i] = journal::IntervalRecord{};
  ring->used = half;
  ring->interval_ns *= 2;
  ring->coarsenings += 1;
}

void add_to_interval(journal::IntervalRing* ring, uint64_t mono_ns, uint32_t timeline_class,
                     uint64_t weight_ns, const journal::SampleContext& ctx) {
  if (!ring || ring->capacity != journal::kIntervalCapacity || mono_ns < ring->origin_mono_ns)
    return;
  Changing changing(ring);
  const uint64_t since = mono_ns - ring->origin_mono_ns;
  while (since / ring->interval_ns >= ring->capacity) coarsen_intervals(ring);
  const auto i = uint32_t(since / ring->interval_ns);
  journal::IntervalRecord& r = ring->records[i];
  r.ns[timeline_class < journal::kTimelineClasses ? timeline_class : timeline::kOther] += weight_ns;
  r.samples += 1;
  r.last_state = ctx.omp_state;
  r.fork_id = ctx.fork_id;
  r.region_node = ctx.region_node;
  if (i >= ring->used) ring->used = i + 1;
}

uint32_t timeline_class_of(const ThreadState* ts, const journal::SampleContext& ctx) {
  if (ctx.omp_state == format::kInTaskwait && ts->taskwait_depth > 0 &&
      ts->taskwait_depth <= kMaxTaskwaitBrackets && ts->current_task &&
      ts->current_task != ts->taskwait_brackets[ts->taskwait_depth - 1].task)
    return timeline::kWork;
  return timeline::class_of(ctx.omp_state);
}

}  // namespace omprof::handler
