// Where a thread's time off the CPU fell, as its samples see it. A CPU-time sample stands for
// the thread's CPU time since the previous one; the wall time between the two that neither the
// sample nor a measured wait accounts for was spent off the CPU (preempted, blocked) around
// then: the two samples share it, half each (where in the gap it fell is not known; at a
// phase's end, giving all of it to the next sample moved a preempted phase's last gaps into the
// phase after it). The samples keep it (journal SampleEntry.off_cpu_seen_ns), and the viewer
// spreads the thread's off-CPU time over its samples by it (omp/accounting.h), instead of
// evenly over its work: a phase that was preempted gets its preemption, a phase that ran alone
// none (docs/semantics.md, "Work is the rest of the thread's time").
//
// A measured wait's samples repeat it. Where its time is known only when it ends (libgomp's
// time off the CPU), what a sample sees before is carried to later samples, which subtract the
// wait then. Where it is wall time known while it runs (OMPT's exact waits, MPI calls: their
// open part is published, intervals.h measured_so_far_ns), a gap's CPU time outside the
// measured time is at most the gap's wall outside it: the CPU time the thread spent spinning in
// a wait is part of the wait, not work that hides time off the CPU, and a sample inside a wait
// does not pass on the work before it as time off the CPU.
// Pure arithmetic on the thread's own trail: async-signal-safe.
#pragma once

#include <cstdint>

namespace omprof::handler {

constexpr uint32_t kNoSeenSlot = ~uint32_t(0);

struct OffCpuTrail {
  uint64_t mono_ns = 0;      // the previous sample (at first: the thread's start)
  uint64_t measured_ns = 0;  // the thread's measured time then (intervals.h measured_so_far_ns)
  int64_t carry_ns = 0;      // seen and not yet given to a sample (negative: counted ahead)
  // The previous sample's entry in the thread's table when it takes off-CPU time, and its
  // parallel region (set by the caller once the sample is recorded), else kNoSeenSlot.
  uint32_t previous_slot = kNoSeenSlot;
  uint64_t previous_region = 0;
};

// What a sample's time is (omp/accounting.h, as set by set_sample_measures).
enum class SampleTime : uint8_t {
  kTakesOffCpu,      // the thread's own time (work, a sampled wait): it takes what it saw
  kOwnOffCpuKnown,   // its time counts, its time off the CPU is measured or placed elsewhere
  kRepeatsMeasured,  // a measured wait's time: its weight is not the thread's time
};

// When the thread's measured time is known (sample_measures.h set_measured_known_while_open).
enum class MeasuredKnown : uint8_t {
  kAtItsEnd,     // some of it only when it ends (carried until then)
  kWhileItRuns,  // all of it, its open part included: wall time
};

struct OffCpuSeen {
  uint64_t previous_ns = 0;  // for trail.previous_slot's entry
  uint64_t this_ns = 0;      // for this sample's entry
};
// A sample and the gap since the previous one.
struct SampleGap {
  uint64_t now_mono_ns = 0;
  // The thread's CPU time since the previous sample, as its clock read it: not the sample's
  // weight, which stratified sampling jitters by up to a period, and which the carry would turn
  // into time off the CPU for phases that had none.
  uint64_t cpu_ns = 0;
  uint64_t measured_ns = 0;  // the thread's measured time now (intervals.h measured_so_far_ns)
  MeasuredKnown known = MeasuredKnown::kAtItsEnd;
  SampleTime time = SampleTime::kTakesOffCpu;
  uint64_t region = 0;  // the sample's parallel region (its fork record; 0: none)
};
// The time off the CPU `gap` saw since the previous sample, split between the two (none unless
// the sample is kTakesOffCpu; all of it when the previous one takes none). A sample inside a
// wait whose measured time is known while it runs gives what it saw, which lies before the
// wait, to the previous sample when that one is in the same parallel region (not after the
// wait, maybe in the next region, where a carry goes).
OffCpuSeen off_cpu_seen(OffCpuTrail& trail, const SampleGap& gap);

}  // namespace omprof::handler
