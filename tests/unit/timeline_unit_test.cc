// The timeline's rules (proto/timeline.h, collector/handler/intervals.h, proto/interval_ring.h):
// each state's class agrees with the model's classification (omp/states.h), measured waits land
// in the intervals they span, samples that repeat a measured wait keep no time, and a thread's
// two rings are read on one grid.
#include <gtest/gtest.h>

#include <memory>

#include "collector/handler/intervals.h"
#include "collector/handler/sample_measures.h"
#include "collector/timeline_events.h"
#include "omp/states.h"
#include "proto/interval_ring.h"
#include "proto/timeline.h"

namespace omprof {
namespace {

using timeline::class_of;

TEST(TimelineClasses, AgreeWithTheModelsWorkAndWait) {
  using namespace format;
  for (uint32_t s = 0; s < 0x2010; ++s) {
    const omp::StateInfo info = omp::describe_state(s);
    if (std::string(info.name) == "unknown") continue;
    const timeline::Class c = class_of(s);
    if (s == kInTaskwait) {
      EXPECT_EQ(c, timeline::kTaskwait);  // the handler resolves it (timeline_class_of)
    } else if (info.cls == omp::StateClass::kWork) {
      EXPECT_EQ(c, timeline::kWork) << std::hex << s << " " << info.name;
    } else if (omp::is_mpi(s)) {
      EXPECT_EQ(c, timeline::kMpi) << std::hex << s;
    } else if (omp::is_idle(s)) {
      EXPECT_EQ(c, timeline::kIdle) << std::hex << s;
    } else if (omp::is_overhead(s)) {
      EXPECT_EQ(c, timeline::kOverhead) << std::hex << s << " " << info.name;
    } else if (std::string(info.pseudo_frame).find("barrier") != std::string::npos) {
      EXPECT_EQ(c, timeline::kBarrier) << std::hex << s << " " << info.name;
    } else if (s == kWaitTaskwait || s == kWaitTaskgroup) {
      EXPECT_EQ(c, timeline::kTaskwait) << std::hex << s;
    } else if (s >= kWaitMutex && s <= kWaitOrdered) {
      EXPECT_EQ(c, timeline::kLock) << std::hex << s;
    } else {
      EXPECT_EQ(c, timeline::kOther) << std::hex << s << " " << info.name;
    }
  }
  // The two codes that are also class names here.
  EXPECT_EQ(class_of(kIdle), timeline::kIdle);
  EXPECT_EQ(class_of(kOverhead), timeline::kOverhead);
}

constexpr uint64_t kMs = 1000000, kOrigin = 5000 * kMs;

std::unique_ptr<journal::IntervalRing> ring(uint64_t interval_ns) {
  auto r = std::make_unique<journal::IntervalRing>();
  r->seq.store(0);
  handler::init_interval_ring(r.get(), interval_ns, kOrigin);
  return r;
}

journal::SampleContext in_state(uint32_t state) {
  journal::SampleContext c{};
  c.omp_state = state;
  return c;
}

TEST(TimelineIntervals, AMeasuredWaitFillsTheIntervalsItSpans) {
  auto r = ring(100 * kMs);
  // A barrier wait from 50 ms to 320 ms after the start.
  handler::add_measured_to_intervals(r.get(), kOrigin + 320 * kMs, 270 * kMs,
                                     in_state(format::kWaitBarrierImplicit));
  ASSERT_EQ(r->used, 4u);
  const uint64_t expected[] = {50 * kMs, 100 * kMs, 100 * kMs, 20 * kMs};
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(r->records[i].ns[timeline::kBarrier], expected[i]) << i;
  EXPECT_EQ(r->records[3].samples, 1u);  // counted once, where it ended
  EXPECT_EQ(r->records[0].samples, 0u);
  EXPECT_TRUE(journal::holds_anything(r->records[0]));  // its time, without a count
  EXPECT_EQ(r->seq.load() % 2, 0u);
}

TEST(TimelineIntervals, AWaitPastTheRingsEndCoarsensItFirst) {
  auto r = ring(1 * kMs);
  handler::add_measured_to_intervals(r.get(), kOrigin + 10 * kMs, 4 * kMs,
                                     in_state(format::kIdleDerived));
  // Ends past 4096 intervals of 1 ms: the ring doubles to 2 ms and the early wait moves with it.
  handler::add_measured_to_intervals(r.get(), kOrigin + 5000 * kMs, 3 * kMs,
                                     in_state(format::kMpiFirst + 3));
  EXPECT_EQ(r->interval_ns, 2 * kMs);
  EXPECT_EQ(r->coarsenings, 1u);
  EXPECT_EQ(r->records[3].ns[timeline::kIdle] + r->records[4].ns[timeline::kIdle], 4 * kMs);
  EXPECT_EQ(r->records[2499].ns[timeline::kMpi] + r->records[2498].ns[timeline::kMpi], 3 * kMs);
}

TEST(TimelineIntervals, ASampleThatRepeatsAMeasuredWaitIsCountedWithoutItsTime) {
  auto r = ring(100 * kMs);
  handler::set_repeats_measured(format::kWaitBarrierImplicit, true);
  handler::add_to_interval(r.get(), kOrigin + 10 * kMs, timeline::kBarrier, kMs,
                           in_state(format::kWaitBarrierImplicit));
  const uint64_t counts[journal::kMaxCounters] = {3, 0, 7, 0};
  handler::add_to_interval(r.get(), kOrigin + 11 * kMs, timeline::kWork, kMs,
                           in_state(format::kWorkParallel), counts);
  handler::set_repeats_measured(format::kWaitBarrierImplicit, false);
  EXPECT_EQ(r->records[0].samples, 2u);
  EXPECT_EQ(r->records[0].ns[timeline::kBarrier], 0u);
  EXPECT_EQ(r->records[0].ns[timeline::kWork], kMs);
  EXPECT_EQ(r->records[0].counters[0], 3u);
  EXPECT_EQ(r->records[0].counters[2], 7u);
  // A merge adds them up.
  EXPECT_EQ(timeline::merged(r->records[0], r->records[0]).counters[2], 14u);
  // Every MPI call shares one switch.
  handler::set_repeats_measured(format::kMpiFirst, true);
  EXPECT_TRUE(handler::sample_repeats_measured(format::kMpiFirst + 40));
  handler::set_repeats_measured(format::kMpiFirst, false);
  EXPECT_FALSE(handler::sample_repeats_measured(format::kMpiFirst + 40));
}

TEST(TimelineIntervals, AThreadsTwoRingsAreReadOnTheCoarserGrid) {
  auto sampled = ring(1 * kMs), measured = ring(1 * kMs);
  handler::add_to_interval(sampled.get(), kOrigin + kMs / 2, timeline::kWork, kMs,
                           in_state(format::kWorkParallel));
  // The measured ring coarsens twice (4 ms intervals); the sample ring not at all.
  handler::add_measured_to_intervals(measured.get(), kOrigin + 12000 * kMs, kMs,
                                     in_state(format::kWaitLock));
  ASSERT_EQ(measured->interval_ns, 4 * kMs);
  journal::ThreadIntervals t;
  ASSERT_TRUE(journal::copy_thread_intervals(*sampled, measured.get(), t));
  EXPECT_EQ(t.interval_ns, 4 * kMs);
  EXPECT_EQ(t.coarsenings, 2u);
  ASSERT_EQ(t.sampled.size(), t.measured.size());
  EXPECT_EQ(t.sampled[0].ns[timeline::kWork], kMs);
  EXPECT_EQ(t.sampled[0].samples, 1u);
  EXPECT_EQ(t.measured[2999].ns[timeline::kLock], kMs);
  // Without a measured ring (a journal before version 12) the samples alone.
  ASSERT_TRUE(journal::copy_thread_intervals(*sampled, nullptr, t));
  EXPECT_EQ(t.interval_ns, kMs);
  EXPECT_EQ(t.measured.size(), t.sampled.size());
  EXPECT_EQ(t.measured[0].samples, 0u);
}

TEST(TimelineEvents, AFullRingKeepsTheLongerEventsAndCountsTheRest) {
  auto r = std::make_unique<journal::EventRing>();
  r->seq.store(0);
  init_event_ring(r.get(), 10 * kMs);
  add_timeline_event(r.get(), 0, 9 * kMs, journal::kEventRegion, 1, 0);  // below: not an event
  EXPECT_EQ(r->used, 0u);
  EXPECT_EQ(r->dropped, 0u);
  // Alternately 10 ms and 30 ms long, until the ring is full.
  for (uint32_t i = 0; i < journal::kEventCapacity; ++i)
    add_timeline_event(r.get(), i * 100 * kMs, i * 100 * kMs + (i % 2 ? 30 : 10) * kMs,
                       journal::kEventMpi, 7, 0x400000 + i);
  EXPECT_EQ(r->used, journal::kEventCapacity);
  // One more: the threshold doubles to 20 ms and the 10 ms events go (counted).
  add_timeline_event(r.get(), 0, 50 * kMs, journal::kEventRegion, 2, 0);
  EXPECT_EQ(r->min_ns, 20 * kMs);
  EXPECT_EQ(r->raises, 1u);
  EXPECT_EQ(r->dropped, journal::kEventCapacity / 2);
  EXPECT_EQ(r->used, journal::kEventCapacity / 2 + 1);
  for (uint32_t i = 0; i < r->used; ++i)
    EXPECT_GE(r->events[i].end_ns - r->events[i].start_ns, 20 * kMs);
  EXPECT_EQ(r->events[r->used - 1].id, 2u);
  EXPECT_EQ(r->seq.load() % 2, 0u);
}

}  // namespace
}  // namespace omprof
