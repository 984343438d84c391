// The libgomp adapter's waits: each wrapped entry point that waits (barriers, taskwait, locks,
// critical, ordered) begins and ends a wait on the thread's stack of open waits
// (collector/openmp/open_waits.h), measured as libgomp allows (off the CPU or whole; the
// runtime has no wait events inside it), and a task run through omprof's trampoline pauses the
// wait it runs in. The regions, members and the end-of-region wait are regions.cc's; task
// creation is task_creation.cc's. Ordinary context, on the waiting thread.
#include <cstdint>

#include "collector/handler/barrier_arrivals.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/thread_state.h"
#include "collector/libgomp/bridge.h"
#include "collector/libgomp/gomp_thread.h"
#include "collector/open_wait.h"
#include "collector/openmp/events.h"
#include "collector/openmp/open_waits.h"
#include "collector/openmp/wait_split.h"
#include "collector/runtime.h"
#include "omp/states.h"
#include "proto/state_codes.h"

namespace {

// The adapter's shared state and helpers (gomp_thread.h), by their names.
using namespace omprof::gomp;  // NOLINT(google-build-using-namespace)
using omprof::handler::ThreadState;
using omprof::openmp::off_cpu_ns;
namespace pv = omprof::handler::parallel_value;
namespace fmt = omprof::format;

// Barriers and taskwaits, where the runtime may run tasks, are measured by their time off the
// CPU (wall time minus the thread's CPU time); their CPU time is sampled. Locks, critical, atomic
// and ordered run no tasks: they are measured whole, with two monotonic clock reads (omp/states.h,
// is_measured_whole_on_libgomp).
bool measured_off_cpu(uint32_t state) {
  return (state >= fmt::kWaitBarrier && state <= fmt::kWaitBarrierTeams) ||
         state == fmt::kInTaskwait;
}

// A task run inside a barrier or taskwait pauses it, and a wait inside which another began is
// not recorded (openmp/open_waits.h); the samples still see the wait's CPU time.

// Wait `w`'s piece measured off the CPU (a barrier or taskwait), from its (re)start to `now`
// (the thread's CPU time then: `cpu_now`). A team barrier's, after every member had arrived
// (and if the thread ran no task there), is the barrier's synchronization: split in proportion
// to the wall time before and after the last arrival.
void record_off_cpu_wait(ThreadState* ts, const omprof::openmp::OpenWait& w, uint64_t now,
                         uint64_t cpu_now) {
  uint64_t off = off_cpu_ns(w.clock.start_ns, w.clock.cpu_start_ns, now, cpu_now);
  uint64_t run_delay = 0;  // after a task that waited, only what the thread slept
  if (w.clock.sleep_only && own(ts).cpu_clock.run_delay(&run_delay))
    off = omprof::openmp::sleep_part(w.clock, off, run_delay);
  note_measured(ts, now, off);
  namespace arrivals = omprof::handler::barrier_arrivals;
  const uint64_t last = w.barrier_key && !w.ran_tasks ? arrivals::all_arrived_ns(w.barrier_key) : 0;
  const omprof::openmp::BarrierSplit split =
      omprof::openmp::split_at_last_arrival(off, w.clock.start_ns, now, last);
  if (split.sync_ns)
    omprof::openmp::record_wait(ts, w.codeptr, context_now(ts, fmt::kOverheadBarrier),
                                split.sync_ns, now);
  off = split.waiting_ns;
  // A taskwait off the CPU waits for its children (its runtime code on the CPU is overhead).
  const uint32_t state = w.ctx.omp_state;
  const uint32_t as = state == fmt::kInTaskwait ? uint32_t(fmt::kWaitTaskwait) : state;
  if (off) omprof::openmp::record_wait(ts, w.codeptr, context_now(ts, as), off, now);
}

// How a wait that begins in `state` is measured, and its clocks: read only for a measured wait;
// one the guard does not count (`counted`) starts from the cheap clock's last exact reading (a
// mark, `marked`: the thread's switch word then), and reads no clock at all unless the thread is
// switched out meanwhile.
struct BeginClocks {
  omprof::openmp::Measure how = omprof::openmp::Measure::kNone;
  uint64_t now_ns = 0;
  uint64_t cpu_ns = 0;
  bool counted = false;
  bool marked = false;
  uint32_t switch_seq = 0;
};
[[gnu::always_inline]] inline BeginClocks begin_clocks(ThreadState* ts, GompThread& g,
                                                       uint32_t state) {
  using omprof::openmp::Measure;
  BeginClocks c;
  const bool off_cpu = measured_off_cpu(state) && measures_off_cpu(ts, &c.counted);
  c.marked = off_cpu && !c.counted;
  if (c.marked) {
    const omprof::clocks::SwitchWatch::Mark m = g.cpu_clock.mark();
    c.now_ns = m.wall_ns;
    c.cpu_ns = m.cpu_ns;
    c.switch_seq = m.seq;
  } else if (off_cpu || omprof::omp::is_measured_whole_on_libgomp(state)) {
    c.now_ns = omprof::monotonic_ns();
    c.cpu_ns = off_cpu ? cpu_at(ts, c.now_ns) : 0;
  }
  c.how = off_cpu                                            ? Measure::kOffCpu
          : omprof::omp::is_measured_whole_on_libgomp(state) ? Measure::kWhole
                                                             : Measure::kNone;
  return c;
}

// Wait `w` ended (off the stack): a lock or critical is recorded whole; a barrier or taskwait,
// its time off the CPU since its (re)start, unless a wait began inside it (recorded()) or its
// clock is a mark and the thread was never switched out since (it was never off the CPU).
void record_ended_wait(ThreadState* ts, GompThread& g, const omprof::openmp::OpenWaits& waits,
                       const omprof::openmp::OpenWait& w) {
  using omprof::openmp::Measure;
  if (w.measure == Measure::kWhole) {
    const uint64_t now = omprof::monotonic_ns();
    if (now > w.clock.start_ns)
      omprof::openmp::record_wait(ts, w.codeptr, context_now(ts, w.ctx.omp_state),
                                  now - w.clock.start_ns, now);
  } else if (w.measure == Measure::kOffCpu && waits.recorded(w) &&
             !(w.clock_marked && !g.cpu_clock.switched_since(w.switch_seq))) {
    const uint64_t now = omprof::monotonic_ns();
    record_off_cpu_wait(ts, w, now, cpu_at(ts, now));
  }
}

// The team barrier the thread waits in, for a sample (handler/omp_inquiry.cc): the innermost
// open wait's (`w`, null: none).
void publish_barrier(ThreadState* ts, const omprof::openmp::OpenWait* w) {
  ts->omp.gomp.barrier_tag = w ? w->barrier_key : 0;
  ts->omp.gomp.barrier_ran_task = w ? w->ran_tasks : false;
}

}  // namespace

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

OMPROF_EXPORT void omprof_internal_gomp_wait_begin(uint32_t state, const void* codeptr_ra,
                                                   omprof_gomp_context* saved) {
  saved->begun = 0;
  saved->pushed = 0;
  const bool team_barrier = state & OMPROF_GOMP_TEAM_BARRIER;
  state &= ~OMPROF_GOMP_TEAM_BARRIER;
  ThreadState* ts = tracked_thread();
  if (!ts || !ts->omp.gomp.thread) return;  // a thread outside OpenMP: left alone
  saved->begun = 1;
  save(ts, saved);
  GompThread& g = own(ts);
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  if (state == fmt::kInTaskwait) ts->omp.gomp.taskwait_strata = ts->strata_sampled;
  const BeginClocks c = begin_clocks(ts, g, state);
  const uint64_t codeptr = codeptr_ra ? reinterpret_cast<uint64_t>(codeptr_ra) - 1 : 0;
  omprof::openmp::OpenWait* w = waits.begin_clocked(reinterpret_cast<const void*>(g.task_cut),
                                                    codeptr, state, c.how, c.now_ns, c.cpu_ns);
  saved->pushed = w != nullptr;
  if (w) {
    w->clock_marked = c.marked;
    w->switch_seq = c.switch_seq;
  } else {
    ++ts->open_waits_overflow;
  }
  uint64_t tag = 0;
  // Before the state: a sample in the wait sees its barrier. Counted only while the thread
  // measures its waits (the cost guard, above): the count is a cache line the team's threads
  // all write (about 50 ns a barrier on 2 vCPUs), and a thread that makes over 16,000 waits a
  // second leaves its barrier waits unsplit, sampled only, as it leaves their time off the CPU.
  // Every member numbers every team barrier, counted or not, so that the numbers agree.
  if (team_barrier && ts->omp.gomp.team_size > 1 && ts->omp.gomp.parallel_value) {
    namespace arrivals = omprof::handler::barrier_arrivals;
    const uint32_t number = waits.number_barrier();
    if (c.cpu_ns && c.counted) {
      tag = arrivals::tag(pv::instance(ts->omp.gomp.parallel_value), number);
      arrivals::arrive(tag, ts->omp.gomp.team_size, c.now_ns);
    }
  }
  if (w) w->barrier_key = tag;
  ts->omp.gomp.barrier_ran_task = false;
  ts->omp.gomp.barrier_tag = tag;
  ts->omp.gomp.state = state;
  if (w && waits.depth() == 1)  // the outermost wait, for a live reader
    omprof::open_wait::begin(*ts, state, c.now_ns && !c.marked ? c.now_ns : omprof::monotonic_ns());
}

OMPROF_EXPORT void omprof_internal_gomp_wait_end(const omprof_gomp_context* saved) {
  if (!saved->begun) return;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  ts->omp.gomp.state = saved->state;
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  const omprof::openmp::OpenWait* w = saved->pushed ? waits.pop() : nullptr;
  if (w && waits.depth() == 0) omprof::open_wait::end(*ts);
  // An enclosing taskwait that ran this (a task's wait) was busy until now: it counts as
  // waiting again only from its next sample on.
  ts->omp.gomp.taskwait_strata = ts->strata_sampled;
  if (w) record_ended_wait(ts, own(ts), waits, *w);
  publish_barrier(ts, waits.innermost());  // the enclosing wait's (none, usually)
}

OMPROF_EXPORT void omprof_internal_gomp_task_begin(uint32_t record, const void* frame,
                                                   omprof_gomp_context* saved) {
  saved->begun = 0;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  saved->begun = 1;
  saved->task_origin = ts->omp.task_origin;
  const GompThread* mine = existing(ts);
  saved->task_cut = mine ? mine->task_cut : 0;
  // The wait the task runs in is measured up to here: time the task spends off the CPU
  // (preempted) is the task's, spread over its samples like any thread's (omp/states.h).
  // The task's identity is its trampoline's frame (the waits' task: openmp/open_waits.h).
  ++own(ts).tasks_begun;
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  omprof::openmp::OpenWait* wait = waits.innermost();
  if (waits.switch_moves_wait(frame)) {  // its piece so far is recorded: the task pauses it
    const uint64_t now = omprof::monotonic_ns();
    const uint64_t cpu = cpu_at(ts, now);
    if (waits.join() == wait)
      record_join(ts, now, cpu, nullptr, 0);
    else
      record_off_cpu_wait(ts, *wait, now, cpu);
    waits.pause_clocked();
  }
  if (ts->omp.gomp.state == fmt::kWaitBarrierImplicitParallel) ts->omp.gomp.join_ran_task = true;
  if (wait && wait->barrier_key) {  // its split is not known any more
    wait->ran_tasks = true;
    publish_barrier(ts, wait);
  }
  set_task(ts, record, reinterpret_cast<uint64_t>(frame));
  // The thread runs a task, whatever it waited in: work (a sample then needs no stack rule, and
  // no fork-wait rule of the region-end barrier applies to it).
  saved->state = ts->omp.gomp.state;
  ts->omp.gomp.state = fmt::kWorkParallel;
}

OMPROF_EXPORT void omprof_internal_gomp_task_end(const omprof_gomp_context* saved) {
  if (!saved->begun) return;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  set_task(ts, saved->task_origin, saved->task_cut);
  ts->omp.gomp.state = saved->state;
  // An enclosing taskwait was busy until now: waiting again only from its next sample on.
  ts->omp.gomp.taskwait_strata = ts->strata_sampled;
  // The task it interrupted runs again: the waits it paused go on from here (the task's own
  // waits, if any, are over). A barrier or taskwait after a task that began a wait itself (a
  // recursion of taskwaits, as fib's) records only what the thread slept, out of the run queue
  // (openmp/open_waits.h resume_clocked), where that is read cheaply; else it is not recorded
  // from then on. The end-of-region wait goes on afresh in any case (no run queue read).
  omprof::openmp::OpenWaits& waits = omprof::openmp::model(ts).waits;
  const bool resumes_wait = waits.switch_moves_wait(reinterpret_cast<const void*>(saved->task_cut));
  if (!resumes_wait) return;
  const uint64_t now = omprof::monotonic_ns();
  const uint64_t cpu = cpu_at(ts, now);
  uint64_t run_delay = 0;
  const bool run_delay_known = !omprof::openmp::is_clocked_join(*waits.innermost()) &&
                               own(ts).cpu_clock.run_delay(&run_delay);
  waits.resume_clocked(now, cpu, run_delay_known, run_delay);
}
