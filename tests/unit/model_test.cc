// The viewer's model of thread time in profiles with exact waits (format 1.2): samples in
// exactly measured wait states are replaced by the measured waits, and the thread's remaining
// time off the CPU is spread over its work samples under an <off-cpu> leaf.
#include "viewer/model.h"

#include <gtest/gtest.h>

#include "omp/states.h"

namespace omprof::viewer {
namespace {

// One thread alive for 1 s: 300 ms sampled in work() (stack 1), 100 ms in compute() (stack 2),
// 200 ms of samples spinning at a barrier (stack 3), and an exact barrier wait of 450 ms (stack
// 3's construct). Off the CPU outside waits: 1000 - 300 - 100 - 450 = 150 ms.
format::Profile make_profile(bool exact_waits) {
  format::Profile p;
  p.strings = {"", "work", "compute", "main", "app.c"};
  p.header.set_format_major(1);
  p.header.set_format_minor(2);
  p.header.set_clock(v1::CLOCK_TASK);
  p.header.set_duration_ns(1000000000);
  p.header.set_exact_waits(exact_waits);
  for (uint64_t id = 1; id <= 3; ++id) {
    v1::Function f;
    f.set_id(id);
    f.set_name(id);
    f.set_filename(4);
    p.functions.push_back(f);
    v1::Location l;
    l.set_id(id);
    l.set_address(0x1000 + id);
    l.add_line()->set_function_id(id);
    p.locations.push_back(l);
  }
  auto stack = [&](std::vector<uint64_t> locs) {
    v1::Stack s;
    s.set_id(p.stacks.size() + 1);
    for (uint64_t l : locs) s.add_location_id(l);
    p.stacks.push_back(s);
  };
  stack({1, 3});  // work <- main
  stack({2, 3});  // compute <- main
  stack({3});     // main (the barrier's call site)
  v1::ThreadProfile t;
  t.set_index(0);
  t.set_is_main(true);
  t.set_start_ns(0);
  t.set_end_ns(1000000000);
  auto add = [](google::protobuf::RepeatedPtrField<v1::Sample>* to, uint64_t stack, uint64_t ms,
                uint32_t state) {
    v1::Sample* s = to->Add();
    s->set_stack_id(stack);
    s->set_count(ms / 5);
    s->set_weight_ns(ms * 1000000);
    s->set_omp_state(state);
  };
  add(t.mutable_sample(), 1, 300, 0);
  add(t.mutable_sample(), 2, 100, 0);
  add(t.mutable_sample(), 3, 200, 0x14);  // spinning at an explicit barrier
  add(t.mutable_wait(), 3, 450, 0x14);    // the same waits, measured
  p.threads[0] = t;
  return p;
}

uint64_t in_state(const Model& m, uint32_t state) {
  uint64_t ns = 0;
  for (const auto& s : m.samples) ns += s.state == state ? s.weight_ns : 0;
  return ns;
}

TEST(Model, ExactWaitsReplaceSpinningSamplesAndOffCpuTimeFillsTheThread) {
  format::Profile p = make_profile(true);
  Model m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, 0x14), 450000000u);  // the exact wait, not the 200 ms of spinning
  EXPECT_EQ(in_state(m, omp::kStateOffCpu), 150000000u);
  EXPECT_EQ(m.total_weight_ns, 1000000000u);  // the thread's whole life
  EXPECT_EQ(m.total_samples, 80u);            // sampled work only (60 + 20)
  // Off-CPU time goes to the work stacks in proportion (3:1), under an <off-cpu> leaf.
  uint64_t under_work = 0, under_compute = 0;
  for (const auto& s : m.samples) {
    if (s.state != omp::kStateOffCpu) continue;
    ASSERT_GE(s.stack.size(), 2u);
    EXPECT_EQ(s.stack.front().name, "<off-cpu>");
    if (s.stack[1].name == "work") under_work += s.weight_ns;
    if (s.stack[1].name == "compute") under_compute += s.weight_ns;
  }
  EXPECT_EQ(under_work, 112500000u);
  EXPECT_EQ(under_compute, 37500000u);
  for (const auto& s : m.samples)
    if (s.state == 0x14) {
      EXPECT_TRUE(s.exact);
      EXPECT_EQ(s.stack.front().name, "<omp:explicit-barrier>");
    }
}

TEST(Model, OlderProfilesKeepTheirSampledWaits) {
  format::Profile p = make_profile(false);
  Model m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, 0x14), 200000000u);
  EXPECT_EQ(in_state(m, omp::kStateOffCpu), 0u);
  EXPECT_EQ(m.total_weight_ns, 600000000u);
}

// From format 1.20 the header says how each state was measured, whatever runtime wrote it:
// readers follow the table, not Header.exact_waits.
TEST(Model, TheHeadersStateMeasurementDecidesWhatIntervalsReplace) {
  format::Profile p = make_profile(false);
  p.header.set_format_minor(20);
  v1::StateMeasurement* barriers = p.header.add_state_measurement();
  barriers->set_first_state(0x10);
  barriers->set_last_state(0x16);
  barriers->set_how(v1::StateMeasurement::EXACT);
  Model m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, 0x14), 450000000u) << "the exact wait replaces the spinning samples";
  EXPECT_EQ(in_state(m, omp::kStateOffCpu), 150000000u);

  // The same barrier measured only off the CPU (150 ms of it): its samples (its time on the
  // CPU) stay beside the interval, and the thread's other 250 ms off the CPU go to its work,
  // none to the barrier's samples.
  barriers->set_how(v1::StateMeasurement::OFF_CPU);
  p.threads[0].mutable_wait(0)->set_weight_ns(150000000);
  m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, 0x14), 350000000u);
  EXPECT_EQ(in_state(m, omp::kStateOffCpu), 250000000u);
  EXPECT_EQ(m.total_weight_ns, 1000000000u);

  // A range this reader does not know how was measured (a newer writer's) is left out: sampled,
  // its intervals not counted, as in a profile that measured nothing.
  barriers->set_how(v1::StateMeasurement::How(7));
  m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, 0x14), 200000000u);
  EXPECT_EQ(m.total_weight_ns, 600000000u);
}

TEST(Model, WallClockProfilesHaveNoOffCpuResidual) {
  format::Profile p = make_profile(true);
  p.header.set_clock(v1::CLOCK_WALL);
  Model m = build_model(p, omp::View::kUser);
  EXPECT_EQ(in_state(m, omp::kStateOffCpu), 0u);
}

}  // namespace
}  // namespace omprof::viewer
