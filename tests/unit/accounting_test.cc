// The accounting rules of omp/accounting.h on designed threads: which samples measured
// intervals replace, and where a thread's time off the CPU goes.
#include "omp/accounting.h"

#include <gtest/gtest.h>

#include <numeric>

#include "omp/states.h"
#include "proto/mpi_calls.h"
#include "proto/state_codes.h"

namespace omprof::omp {
namespace {

constexpr uint32_t kWork = format::kWorkParallel;
constexpr uint32_t kBarrier = format::kWaitBarrierImplicitParallel;
constexpr uint32_t kLock = format::kWaitMutex;
constexpr uint32_t kTaskwait = format::kWaitTaskwait;
constexpr uint32_t kAllreduce = format::kMpiFirst + format::kMpi_Allreduce;
constexpr size_t kNone = OffCpuPart::kNoDonor;

Measurement ompt() {
  return ompt_measurement(true);
}

Measurement libgomp() {
  return libgomp_measurement();
}

uint64_t sum(const std::vector<OffCpuPart>& parts) {
  return std::accumulate(parts.begin(), parts.end(), uint64_t(0),
                         [](uint64_t s, const OffCpuPart& p) { return s + p.ns; });
}

TEST(Accounting, MeasuredIntervalsReplaceTheSamplesThatSawThem) {
  EXPECT_TRUE(repeats_measured_time(ompt(), kBarrier, false)) << "timed exactly by OMPT";
  EXPECT_TRUE(repeats_measured_time(ompt(), kLock, false));
  EXPECT_FALSE(repeats_measured_time(ompt(), kWork, false));
  EXPECT_TRUE(repeats_measured_time(libgomp(), kLock, false)) << "a lock is measured whole";
  EXPECT_FALSE(repeats_measured_time(libgomp(), kBarrier, false))
      << "libgomp's barrier samples count; its wrappers measure only the time off the CPU";
  EXPECT_FALSE(repeats_measured_time(Measurement{}, kBarrier, false)) << "nothing measured";
  EXPECT_TRUE(repeats_measured_time(Measurement{}, kAllreduce, true));
  EXPECT_FALSE(repeats_measured_time(ompt(), kAllreduce, false)) << "MPI calls not measured";
  const Measurement sampled_taskwait = ompt_measurement(false);  // format 1.7 on
  EXPECT_TRUE(repeats_measured_time(ompt(), kTaskwait, false));
  EXPECT_FALSE(repeats_measured_time(sampled_taskwait, kTaskwait, false));
}

TEST(Accounting, UnnamedBookkeepingIsTheForksWhereItWasMeasuredSo) {
  EXPECT_EQ(accounted_state(ompt(), format::kOverhead, true), format::kOverheadFork);
  EXPECT_EQ(accounted_state(ompt(), format::kOverhead, false), format::kOverhead)
      << "an OMPT sample in overhead repeats an exact interval, and is dropped as such";
  EXPECT_EQ(accounted_state(libgomp(), format::kOverhead, false), format::kOverheadFork);
  EXPECT_EQ(accounted_state(ompt(), kWork, true), kWork);
}

TEST(Accounting, OffCpuTimeIsPlacedOnlyWhereSamplesMissIt) {
  EXPECT_TRUE(places_off_cpu_time(ompt(), false));
  EXPECT_TRUE(places_off_cpu_time(Measurement{}, true)) << "exact MPI calls";
  EXPECT_FALSE(places_off_cpu_time(Measurement{}, false)) << "samples only: nothing to place";
  Measurement wall = ompt();
  wall.cpu_clock = false;
  EXPECT_FALSE(places_off_cpu_time(wall, true)) << "wall-clock samples see off-CPU time";
  EXPECT_FALSE(takes_off_cpu_time(libgomp(), kBarrier)) << "its time off the CPU was measured";
  EXPECT_TRUE(takes_off_cpu_time(libgomp(), kWork));
  EXPECT_TRUE(takes_off_cpu_time(ompt(), kBarrier)) << "no time: its samples repeat the intervals";
  EXPECT_TRUE(takes_off_cpu_time(libgomp(), kLock)) << "the same for a lock timed whole";
}

// The rules as readers applied them before format 1.20, from which runtime wrote the profile
// (Header.exact_waits: OMPT; off_cpu_waits: libgomp's wrappers): the states each measured
// exactly, and on libgomp the waits whose time off the CPU was measured.
struct RulesBefore120 {
  bool exact_waits = false, off_cpu_waits = false, taskwait_exact = true;

  bool exact(uint32_t s) const {
    using namespace format;
    return (s >= kWaitBarrier && s <= kWaitBarrierTeams) ||
           (taskwait_exact && (s == kWaitTaskwait || s == kWaitTaskgroup)) ||
           (s >= kWaitMutex && s <= kWaitOrdered) || is_idle(s) || s == kOverhead ||
           s == kOverheadBarrier;
  }
  bool whole(uint32_t s) const { return s >= format::kWaitMutex && s <= format::kWaitOrdered; }
  bool off_cpu_measured(uint32_t s) const {
    using namespace format;
    return (s >= kWaitBarrier && s <= kWaitBarrierTeams) || is_idle(s) || s == kOverhead ||
           s == kOverheadFork || s == kOverheadBarrier || s == kWaitTaskwait ||
           s == kWaitTaskgroup || whole(s);
  }
  uint32_t accounted(uint32_t s, bool interval) const {
    return (interval || off_cpu_waits) && s == format::kOverhead ? uint32_t(format::kOverheadFork)
                                                                 : s;
  }
  bool repeats(uint32_t s, bool mpi_exact) const {
    if (is_mpi(s)) return mpi_exact;
    if (exact_waits) return exact(s);
    return off_cpu_waits && whole(s);
  }
  bool takes(uint32_t s) const { return !(off_cpu_waits && off_cpu_measured(s)); }
};

// Every state code a profile may hold: OMPT's, omprof's own and a few MPI calls.
std::vector<uint32_t> every_state() {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s <= 0x110; ++s) out.push_back(s);
  for (uint32_t s = format::kNotOpenMP; s <= format::kOverheadBarrier + 2; ++s) out.push_back(s);
  for (uint32_t s = format::kMpiFirst; s <= format::kMpiFirst + 40; ++s) out.push_back(s);
  return out;
}

TEST(Accounting, LibgompsTaskCreationSleepsAreMeasuredOffTheCpuSinceTheyAreRecorded) {
  // A profile that says how it measured (format 1.20 on) and was written since the collector
  // measures task creation's sleeps: task overhead is its samples plus its measured sleeps, and
  // takes none of the thread's other time off the CPU; one from before 1.20 reads as it did.
  EXPECT_EQ(libgomp_measurement().of(format::kOverheadTask), Measure::kOffCpu);
  EXPECT_FALSE(takes_off_cpu_time(libgomp_measurement(), format::kOverheadTask));
  EXPECT_EQ(libgomp_measurement(false).of(format::kOverheadTask), Measure::kSampled);
  EXPECT_TRUE(takes_off_cpu_time(libgomp_measurement(false), format::kOverheadTask));
  EXPECT_EQ(ompt_measurement(true).of(format::kOverheadTask), Measure::kSampled);
}

TEST(Accounting, EachRuntimesMeasurementGivesTheDecisionsOfItsFlagsBeforeFormat120) {
  struct Case {
    const char* name;
    Measurement now;
    RulesBefore120 before;
  };
  const Case cases[] = {
      {"libomp", ompt_measurement(true), {true, false, true}},
      {"libomp, sampled taskwaits", ompt_measurement(false), {true, false, false}},
      {"libgomp", libgomp_measurement(false), {false, true, true}},
      {"no runtime measured", sampled_measurement(), {false, false, true}},
  };
  // The libgomp wrappers decide which waits they time whole by their own test
  // (collector/libgomp/waits.cc): the table says the same.
  for (uint32_t s : every_state())
    EXPECT_EQ(libgomp_measurement().of(s) == Measure::kExact, is_measured_whole_on_libgomp(s)) << s;
  for (const Case& c : cases) {
    EXPECT_EQ(c.now.wrapper_states, c.before.off_cpu_waits) << c.name;
    for (bool mpi_exact : {false, true})
      EXPECT_EQ(places_off_cpu_time(c.now, mpi_exact),
                c.before.exact_waits || c.before.off_cpu_waits || mpi_exact)
          << c.name;
    for (uint32_t s : every_state()) {
      for (bool interval : {false, true})
        EXPECT_EQ(accounted_state(c.now, s, interval), c.before.accounted(s, interval))
            << c.name << " state " << s;
      for (bool mpi_exact : {false, true})
        EXPECT_EQ(repeats_measured_time(c.now, s, mpi_exact), c.before.repeats(s, mpi_exact))
            << c.name << " state " << s;
      EXPECT_EQ(measured_interval_counts(c.now, s),
                is_mpi(s) || c.before.exact_waits || c.before.off_cpu_waits)
          << c.name << " state " << s;
      // One change: libgomp's locks, timed whole, now give off-CPU time as OMPT's exact waits
      // do (none, having no time; they say where the thread was).
      if (c.before.off_cpu_waits && c.before.whole(s)) {
        EXPECT_TRUE(takes_off_cpu_time(c.now, s)) << s;
        continue;
      }
      EXPECT_EQ(takes_off_cpu_time(c.now, s), c.before.takes(s)) << c.name << " state " << s;
    }
  }
}

TEST(Accounting, ARegionGetsItsUnsampledSelfTimeFirstAndTheRestGoesOverTheOthers) {
  // Region 1 ran 40 ns on the CPU and 70 ns of self wall time: 30 ns off the CPU there. The
  // thread had 50 unaccounted: the other 20 go outside regions, over its samples there.
  const std::vector<OffCpuDonor> donors = {{1, kWork, 40}, {0, kWork, 10}, {0, kWork, 30}};
  const auto parts = place_thread_off_cpu(50, {{1, 70}}, {{1, 40}, {0, 40}}, donors);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].donor, 0u);
  EXPECT_EQ(parts[0].ns, 30u);
  EXPECT_EQ(parts[0].node, 1u);
  EXPECT_EQ(parts[1].donor, 1u);
  EXPECT_EQ(parts[1].ns, 5u) << "20 in proportion 10:30";
  EXPECT_EQ(parts[2].ns, 15u);
  EXPECT_EQ(parts[2].state, kStateOffCpu);
  EXPECT_EQ(sum(parts), 50u);
}

TEST(Accounting, AWorkerWithoutRegionsSpreadsItsOffCpuTimeOverAllItsSamples) {
  // A worker inherits its master's region nodes and has no self wall time of its own: one
  // sample taken outside them must not take all of its preemption.
  const std::vector<OffCpuDonor> donors = {{3, kWork, 90}, {0, kWork, 10}};
  const auto parts = place_thread_off_cpu(100, {}, {{3, 90}, {0, 10}}, donors);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].ns, 90u);
  EXPECT_EQ(parts[0].node, 3u) << "a part keeps its sample's node";
  EXPECT_EQ(parts[1].ns, 10u);
}

TEST(Accounting, ASampledTaskwaitKeepsItsOffCpuTimeAndNoSampleMeansTheRoot) {
  const auto parts = place_thread_off_cpu(9, {}, {}, {{0, kTaskwait, 1}, {0, kWork, 2}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].state, kTaskwait) << "off the CPU in a taskwait is still waiting";
  EXPECT_EQ(parts[1].state, kStateOffCpu);
  EXPECT_EQ(sum(parts), 9u);
  const auto alone = place_thread_off_cpu(7, {}, {}, {});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].donor, kNone);
  EXPECT_EQ(alone[0].ns, 7u);
  EXPECT_TRUE(place_thread_off_cpu(0, {}, {}, {{0, kWork, 1}}).empty());
}

TEST(Accounting, PartsAddUpToTheNanosecondWhateverTheWeights) {
  std::vector<OffCpuDonor> donors;
  for (uint64_t w = 1; w < 50; w += 7) donors.push_back({0, kWork, w * 1000003});
  for (uint64_t off : {1ull, 999ull, 123456789ull, 1ull << 40})
    EXPECT_EQ(sum(place_thread_off_cpu(off, {}, {}, donors)), off) << off;
}

TEST(Accounting, OffCpuTimeGoesWhereTheSamplesSawIt) {
  // Two phases of equal CPU time: the first ran alone (its samples saw nothing off the CPU),
  // the second beside another process (its samples saw 80). All 80 go to the second, not
  // 40 and 40 as by weight.
  const std::vector<OffCpuDonor> donors = {{0, kWork, 50, 0}, {0, kWork, 50, 80}};
  const auto parts = place_thread_off_cpu(80, {}, {{0, 100}}, donors);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].donor, 1u);
  EXPECT_EQ(parts[0].ns, 80u);
}

TEST(Accounting, OffCpuTimeTheSamplesDidNotSeeGoesByWeight) {
  // They saw 20 of 60: 20 where they saw it, the other 40 by weight (1:3).
  const std::vector<OffCpuDonor> donors = {{0, kWork, 10, 20}, {0, kWork, 30, 0}};
  const auto parts = place_thread_off_cpu(60, {}, {{0, 40}}, donors);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].ns, 30u) << "20 seen plus 10 of 40 by weight";
  EXPECT_EQ(parts[1].ns, 30u);
  // They saw more than there is to place (noise): scaled down, in proportion to what they saw.
  const auto scaled =
      place_thread_off_cpu(30, {}, {{0, 40}}, {{0, kWork, 10, 40}, {0, kWork, 30, 20}});
  ASSERT_EQ(scaled.size(), 2u);
  EXPECT_EQ(scaled[0].ns, 20u);
  EXPECT_EQ(scaled[1].ns, 10u);
  // Donors of no weight that saw some (a sample whose weight was another's): by what they saw.
  EXPECT_EQ(sum(place_thread_off_cpu(9, {}, {}, {{0, kWork, 0, 3}})), 9u);
}

TEST(Accounting, InARegionOffCpuTimeGoesWhereItsSamplesSawIt) {
  // Region 1's 30 off the CPU go over its two samples by what they saw (1:2), not by weight.
  const std::vector<OffCpuDonor> donors = {{1, kWork, 30, 10}, {1, kWork, 10, 20}};
  const auto parts = place_thread_off_cpu(30, {{1, 70}}, {{1, 40}}, donors);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].ns, 10u);
  EXPECT_EQ(parts[1].ns, 20u);
}

}  // namespace
}  // namespace omprof::omp
