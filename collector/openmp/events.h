// The OpenMP event model: the events both runtimes' adapters report, in omprof's terms, and
// what each does, written once. The adapters translate their runtime's events into these: the
// OMPT callbacks (collector/ompt/ompt_tool.cc, exact_waits.cc) on libomp, omprof's wrappers of
// GNU libgomp's entry points (collector/libgomp/), which has no OMPT.
//
// A team's life: fork (the construct's fork record and the region's instance,
// ompt/fork_records.h; the fork-to-join wall, ompt/fork_walls.h), each member's begin and end
// of the body (explicit-region context, team sizes, member counters: ompt/member_counters.h),
// the join (the region's end, handler/region_ends.h). A task's creation path:
// ompt/fork_records.h record_task_creation. A measured wait: its time in the thread's wait table
// and on its timeline (record_wait and its two halves).
//
// What the runtimes deliver differently is said by the adapter, not guessed here: how a team's
// barriers are timed (BarrierTiming), and how waits are measured (exact intervals on OMPT, time
// off the CPU on libgomp; the profile's header says which per state: omp/accounting.h).
//
// Process context, on the thread the event happens on; never in the signal handler.
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof::openmp {

using handler::SampleContext;
using handler::ThreadState;

// How an adapter learns when its team's barriers complete.
enum class BarrierTiming : uint8_t {
  // libomp's OMPT: each member's synchronization spans, published per barrier
  // (ompt/barrier_spans.h).
  kSpans,
  // libgomp: when each member begins and ends the region's body (handler/region_ends.h: the
  // team's arrivals; a barrier is split at the last one, handler/barrier_arrivals.h).
  kArrivals,
};

struct Forked {
  uint64_t value = 0;   // the region's value for its team (handler/parallel_value.h; 0: none)
  uint64_t now_ns = 0;  // when the fork began, once its call path was recorded
};
// `ts` (null: a thread omprof does not track) forks a parallel construct at `codeptr_ra` (the
// return address into the program), having entered the runtime at `enter_frame`, for a team of
// `team_size` threads as requested (0: not known). The fork wakes the team of `ts`'s last region
// at the same depth (runtimes reuse a team), whose workers find it where their region's end is
// noted (handler/region_ends.h, waking_fork_ns).
Forked fork(ThreadState* ts, const void* codeptr_ra, const void* enter_frame, unsigned team_size,
            BarrierTiming timing);

// `ts` (null: untracked) begins the body of region `value` as member `index` of a team of
// `team_size` at `now_ns`; `construct`: for the master, the construct it forked (the address
// its end barrier carries; 0: unknown).
void member_begin(ThreadState* ts, uint64_t value, unsigned index, unsigned team_size,
                  uint64_t construct, uint64_t now_ns, BarrierTiming timing);

// `ts` ends its part of region instance `instance` at `now_ns` (arrives at the region's end).
void member_end(ThreadState* ts, uint32_t instance, uint64_t now_ns, BarrierTiming timing);

// The region `value` joins at `now_ns`, on its master `ts` (null: untracked).
void join(ThreadState* ts, uint64_t value, uint64_t now_ns);

// A measured wait of `ns` at `codeptr` in context `ctx`, ended at `end_ns`: in the thread's wait
// table (count_wait) and on its timeline (place_wait). The halves apart where one wait's
// parts lie end to end on the timeline but count as one wait in the table.
void record_wait(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                 uint64_t end_ns);
void count_wait(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns);
void place_wait(ThreadState* ts, uint64_t end_ns, uint64_t ns, const SampleContext& ctx);
// record_wait, as the runtime's overhead (format::kOverhead) in `ctx`'s place: OMPT's fork and
// join bookkeeping, timed like a wait (the master from its parallel_begin to its implicit task,
// and from its implicit task's end to parallel_end; a worker from its wake-up to its next
// implicit task).
void record_overhead(ThreadState* ts, uint64_t codeptr, const SampleContext& ctx, uint64_t ns,
                     uint64_t end_ns);

}  // namespace omprof::openmp
