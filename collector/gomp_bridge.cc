#include "collector/gomp_bridge.h"

#include <algorithm>
#include <atomic>

#include "collector/gomp_thread.h"
#include "collector/handler/barrier_arrivals.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/handler/thread_state.h"
#include "collector/open_wait.h"
#include "collector/openmp/events.h"
#include "collector/openmp/open_waits.h"
#include "collector/openmp/runtime_status.h"
#include "collector/openmp/wait_split.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/wait_context.h"
#include "omp/states.h"
#include "proto/state_codes.h"

namespace {

using omprof::SampleContext;
using omprof::gomp::context_now;
using omprof::gomp::cpu_at;
using omprof::gomp::existing;
using omprof::gomp::GompThread;
using omprof::gomp::own;
using omprof::gomp::tracked_thread;
using omprof::handler::ThreadState;
namespace pv = omprof::handler::parallel_value;
namespace fmt = omprof::format;

std::atomic<bool> g_attached{false};

// libgomp's teams are seen from the wrappers: each member's begin and end of the body, where
// the barriers are split (openmp/events.h).
constexpr omprof::openmp::BarrierTiming kArrivals = omprof::openmp::BarrierTiming::kArrivals;

void set_context(ThreadState* ts, uint64_t value, uint32_t state) {
  omprof::handler::publish_gomp_context(ts->omp.gomp, value, state);
}

void save(const ThreadState* ts, omprof_gomp_context* saved) {
  saved->parallel_value = ts->omp.gomp.parallel_value;
  saved->state = ts->omp.gomp.state;
  saved->thread_num = ts->omp.thread_num;
  saved->task_origin = ts->omp.task_origin;
  const GompThread* mine = existing(ts);
  saved->task_cut = mine ? mine->task_cut : 0;
}

// The running task (origin) and where its code was called from (cut), written before a sample
// can read the origin.
void set_task(ThreadState* ts, uint32_t origin, uint64_t cut) {
  own(ts).task_cut = cut;
  omprof::handler::publish_running_task(ts->omp, origin, nullptr);
}

// Barriers and taskwaits, where the runtime may run tasks, are measured by their time off the
// CPU (wall time minus the thread's CPU time); their CPU time is sampled. Locks, critical, atomic
// and ordered run no tasks: they are measured whole, with two monotonic clock reads (omp/states.h,
// is_measured_whole_on_libgomp).
bool measured_off_cpu(uint32_t state) {
  return (state >= fmt::kWaitBarrier && state <= fmt::kWaitBarrierTeams) ||
         state == fmt::kInTaskwait;
}

// A task run inside a barrier or taskwait pauses it, and a wait inside which another began is
// not recorded (openmp/wait_clocks.h); the samples still see the wait's CPU time.

// Whether the thread measures the wait it begins by its time off the CPU: always where its CPU
// clock reads without a system call (clocks/switch_watch.h), else as the cost guard says
// (collector/openmp/cost_guard.h). `counted`: whether the guard counts the wait in its window;
// only those count their team barrier's arrival (a cache line the team shares).
bool measures_off_cpu(ThreadState* ts, bool* counted = nullptr) {
  GompThread& g = own(ts);
  const bool guarded = g.guard.measure_next();
  if (counted) *counted = guarded;
  if (guarded || g.cpu_clock.cheap()) return true;
  ++ts->unmeasured_waits;
  return false;
}

void note_measured(ThreadState* ts, uint64_t now, uint64_t off) {
  own(ts).guard.note_measured(now, off);
}

using omprof::openmp::off_cpu_ns;

// What the team's tables say, at `now`, of the region whose end-of-region wait the thread
// closes (and of the region it starts next: `next_instance`, when `has_next`).
omprof::openmp::JoinFacts join_facts(const ThreadState* ts, uint64_t now, bool has_next,
                                     uint32_t next_instance) {
  omprof::openmp::JoinFacts f;
  const uint32_t instance = pv::instance(ts->omp.gomp.parallel_value);
  uint64_t end = 0;
  f.region_ended =
      ts->omp.thread_num != 0 && omprof::handler::region_ended(instance, &end) && end < now;
  f.region_end_ns = end;
  f.next_fork_ns = has_next ? omprof::handler::region_fork_ns(next_instance) : 0;
  f.all_begun_ns = omprof::handler::all_members_begun_ns(instance, &f.all_begun_known);
  f.body_ns = ts->omp.gomp.body_ns;
  f.all_ended_ns = ts->omp.gomp.join_ran_task ? 0 : omprof::handler::all_members_ended_ns(instance);
  return f;
}

// A thread's end-of-region wait ends at `now` (its CPU time `cpu_now`): the master's join, a
// worker's wake-up for its next region (`next`, `next_instance`: that region's), a task it
// runs there, or shutdown. Its time off the CPU, split (openmp/join_close.h): woken for the
// next region in that region's context, idle in none, the fork's and release's overhead and
// the waiting at the barrier in the context the wait began in.
void close_join(ThreadState* ts, uint64_t now, uint64_t cpu_now, const SampleContext* next,
                uint32_t next_instance) {
  GompThread& g = own(ts);
  if (!g.waits.join().is_open()) return;
  const omprof::openmp::JoinSpan::Closed span = g.waits.close_join(now, cpu_now);
  note_measured(ts, now, span.recorded ? span.off_ns : 0);
  if (!span.recorded || !span.off_ns) return;
  const omprof::openmp::JoinParts parts = omprof::openmp::split_join(
      span.off_ns, span.start_ns, now, join_facts(ts, now, next != nullptr, next_instance));
  if (parts.woken_ns && next) omprof::openmp::record_wait(ts, 0, *next, parts.woken_ns, now);
  SampleContext idle_ctx;
  idle_ctx.omp_state = fmt::kIdleDerived;
  if (parts.idle_ns)
    omprof::openmp::record_wait(ts, 0, idle_ctx, parts.idle_ns, now - parts.woken_ns);
  // At the barrier: the fork's overhead, the waiting, then the release's overhead, one after
  // another up to the barrier's end on the timeline; the overhead is one wait in the table.
  SampleContext overhead_ctx = g.join_ctx;
  overhead_ctx.omp_state = fmt::kOverhead;
  if (parts.overhead_ns) omprof::openmp::count_wait(ts, 0, overhead_ctx, parts.overhead_ns);
  if (parts.waiting_ns) omprof::openmp::count_wait(ts, 0, g.join_ctx, parts.waiting_ns);
  uint64_t end = parts.barrier_end_ns;
  omprof::openmp::place_wait(ts, end, parts.release_ns, overhead_ctx);
  end -= std::min(end, parts.release_ns);
  omprof::openmp::place_wait(ts, end, parts.waiting_ns, g.join_ctx);
  end -= std::min(end, parts.waiting_ns);
  omprof::openmp::place_wait(ts, end, parts.overhead_ns - parts.release_ns, overhead_ctx);
}

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
void record_ended_wait(ThreadState* ts, GompThread& g, const omprof::openmp::OpenWait& w) {
  using omprof::openmp::Measure;
  if (w.measure == Measure::kWhole) {
    const uint64_t now = omprof::monotonic_ns();
    if (now > w.clock.start_ns)
      omprof::openmp::record_wait(ts, w.codeptr, context_now(ts, w.ctx.omp_state),
                                  now - w.clock.start_ns, now);
  } else if (w.measure == Measure::kOffCpu && g.waits.recorded(w) &&
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

namespace omprof::gomp {

// The wrappers act only without OMPT: a libgomp entry point reached on libomp (which provides
// them too) is seen by the OMPT tool already.
ThreadState* tracked_thread() {
  if (!g_attached.load(std::memory_order_relaxed) || omprof::openmp::ompt_ever()) return nullptr;
  return omprof::handler::current_thread();
}

SampleContext context_now(const ThreadState* ts, uint32_t state) {
  return omprof::wait_context(*ts, ts->omp.gomp.parallel_value, state);
}

// The calling thread's CPU time at `now` (clocks/switch_watch.h: a system call only after the
// thread was switched out).
uint64_t cpu_at(ThreadState* ts, uint64_t now) {
  return own(ts).cpu_clock.cpu_ns(now);
}

}  // namespace omprof::gomp

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

OMPROF_EXPORT int omprof_internal_gomp_attach(void) {
  if (!omprof::runtime().active.load()) return 0;
  g_attached.store(true);
  omprof::handler::set_gomp_inquiry();
  if (ThreadState* ts = omprof::handler::current_thread()) {
    ts->is_omp_thread = true;
    if (!ts->omp.gomp.thread) set_context(ts, 0, fmt::kWorkSerial);
  }
  omprof::openmp::note_gomp_wrappers();
  return 1;
}

OMPROF_EXPORT uint64_t omprof_internal_gomp_fork(const void* codeptr_ra, const void* enter_frame,
                                                 omprof_gomp_context* saved) {
  ThreadState* ts = tracked_thread();
  if (!ts) return 0;
  // A thread of the program's own that forks a region is an OpenMP initial thread.
  if (!ts->omp.gomp.thread) set_context(ts, 0, fmt::kWorkSerial);
  save(ts, saved);
  ts->is_omp_thread = true;
  const omprof::openmp::Forked f = omprof::openmp::fork(ts, codeptr_ra, enter_frame, 0, kArrivals);
  // From here to its own body the thread forks: waking the team (on a busy machine, waiting
  // for a CPU meanwhile). Its time off the CPU there is fork overhead (member_begin).
  GompThread& g = own(ts);
  g.fork_start_ns = 0;
  g.fork_cpu_ns = measures_off_cpu(ts) ? cpu_at(ts, f.now_ns) : 0;
  if (g.fork_cpu_ns) g.fork_start_ns = f.now_ns;
  return f.value;
}

OMPROF_EXPORT void omprof_internal_gomp_join(uint64_t value, const omprof_gomp_context* saved) {
  if (value == 0) return;
  ThreadState* ts = tracked_thread();
  // The master is in the join until its context is restored below. Its state says so before
  // the region's end is published: at the region-end barrier's state, a sample would read an
  // ended region as idle (omp_inquiry.cc), and closing the join may take system calls.
  if (ts) {
    ts->omp.gomp.state = fmt::kOverhead;
    std::atomic_signal_fence(std::memory_order_release);
  }
  const uint64_t now = omprof::monotonic_ns();
  omprof::openmp::join(ts, value, now);
  if (!ts) return;
  omprof::open_wait::end(*ts);
  if (own(ts).waits.join().is_open()) close_join(ts, now, cpu_at(ts, now), nullptr, 0);
  ts->omp.thread_num = saved->thread_num;
  set_task(ts, saved->task_origin, saved->task_cut);
  set_context(ts, saved->parallel_value, saved->state);
}

OMPROF_EXPORT void omprof_internal_gomp_member_begin(uint64_t value, unsigned thread_num,
                                                     unsigned team_size, const void* body_frame) {
  ThreadState* ts = tracked_thread();
  if (!ts || value == 0) return;
  const uint64_t now = omprof::monotonic_ns();
  omprof::open_wait::end(*ts);  // a worker's wait for this region is over
  GompThread& g = own(ts);
  if (g.waits.join().is_open()) {
    // The woken worker's fork overhead, in the region it starts.
    const SampleContext next = omprof::openmp::fork_overhead_context(pv::fork_id(value), thread_num,
                                                                     omprof::current_region_node());
    close_join(ts, now, cpu_at(ts, now), &next, pv::instance(value));
  }
  omprof::openmp::member_begin(ts, value, thread_num, team_size, 0, now, kArrivals);
  if (thread_num == 0 && g.fork_start_ns) {
    const uint64_t off = off_cpu_ns(g.fork_start_ns, g.fork_cpu_ns, now, cpu_at(ts, now));
    note_measured(ts, now, off);
    g.fork_start_ns = 0;
    if (off)
      omprof::openmp::record_wait(ts, 0,
                                  omprof::openmp::fork_overhead_context(
                                      pv::fork_id(value), 0, omprof::current_region_node()),
                                  off, now);
  }
  ts->omp.gomp.team_size = team_size;
  g.barriers_met = 0;
  ts->omp.gomp.barrier_tag = 0;
  g.body_start_ns = now;
  set_task(ts, 0, reinterpret_cast<uint64_t>(body_frame));
  set_context(ts, value, fmt::kWorkParallel);
}

OMPROF_EXPORT void omprof_internal_gomp_member_end(void) {
  ThreadState* ts = tracked_thread();
  if (!ts || ts->omp.gomp.parallel_value == 0) return;
  // A worker stays in this state through the team's end barrier and, once the region has
  // joined, while it idles for the next one (the handler tells them apart: region_ends.h).
  const uint64_t now = omprof::monotonic_ns();
  GompThread& g = own(ts);
  ts->omp.gomp.body_ns = now > g.body_start_ns ? now - g.body_start_ns : 0;
  ts->omp.gomp.join_ran_task = false;
  omprof::openmp::member_end(ts, pv::instance(ts->omp.gomp.parallel_value), now, kArrivals);
  ts->omp.gomp.state = fmt::kWaitBarrierImplicitParallel;
  // At the region's end until the join (the master) or the next region (a worker, idle then).
  omprof::open_wait::begin(*ts, fmt::kWaitBarrierImplicitParallel, now);
  if (!measures_off_cpu(ts)) return;
  g.join_ctx = context_now(ts, fmt::kWaitBarrierImplicitParallel);
  g.waits.open_join(now, cpu_at(ts, now));
}

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
  if (state == fmt::kInTaskwait) ts->omp.gomp.taskwait_strata = ts->strata_sampled;
  const BeginClocks c = begin_clocks(ts, g, state);
  const uint64_t codeptr = codeptr_ra ? reinterpret_cast<uint64_t>(codeptr_ra) - 1 : 0;
  omprof::openmp::OpenWait* w = g.waits.begin_clocked(codeptr, state, c.how, c.now_ns, c.cpu_ns);
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
    const uint32_t number = ++g.barriers_met;
    if (c.cpu_ns && c.counted) {
      tag = arrivals::tag(pv::instance(ts->omp.gomp.parallel_value), number);
      arrivals::arrive(tag, ts->omp.gomp.team_size, c.now_ns);
    }
  }
  if (w) w->barrier_key = tag;
  ts->omp.gomp.barrier_ran_task = false;
  ts->omp.gomp.barrier_tag = tag;
  ts->omp.gomp.state = state;
  if (w && g.waits.depth() == 1)  // the outermost wait, for a live reader
    omprof::open_wait::begin(*ts, state, c.now_ns && !c.marked ? c.now_ns : omprof::monotonic_ns());
}

OMPROF_EXPORT void omprof_internal_gomp_wait_end(const omprof_gomp_context* saved) {
  if (!saved->begun) return;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  ts->omp.gomp.state = saved->state;
  GompThread& g = own(ts);
  const omprof::openmp::OpenWait* w = saved->pushed ? g.waits.pop() : nullptr;
  if (w && g.waits.depth() == 0) omprof::open_wait::end(*ts);
  // An enclosing taskwait that ran this (a task's wait) was busy until now: it counts as
  // waiting again only from its next sample on.
  ts->omp.gomp.taskwait_strata = ts->strata_sampled;
  if (w) record_ended_wait(ts, g, *w);
  publish_barrier(ts, g.waits.innermost());  // the enclosing wait's (none, usually)
}

namespace omprof::gomp {

void close_open_joins(uint64_t now_ns) {
  if (!g_attached.load()) return;
  for (uint32_t i = 0; i < thread_count(); ++i) {
    ThreadState* ts = thread_at(i);
    const GompThread* state = ts ? existing(ts) : nullptr;  // another thread's: never made here
    if (!state || !state->waits.join().is_open()) continue;
    const uint64_t cpu =
        ts->end_ns.load() != 0 ? state->waits.join().cpu_ns() : ts->cpu_ns_at_exit.load();
    close_join(ts, now_ns, cpu, nullptr, 0);
  }
}

void thread_exits(ThreadState* ts) {
  if (GompThread* g = existing(ts)) g->cpu_clock.release();
}

}  // namespace omprof::gomp

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
  GompThread& g = own(ts);
  ++g.tasks_begun;
  saved->paused = g.waits.pause_for_task();
  omprof::openmp::OpenWait* wait = g.waits.innermost();
  if (saved->paused.join || saved->paused.wait) {
    const uint64_t now = omprof::monotonic_ns();
    const uint64_t cpu = cpu_at(ts, now);
    if (saved->paused.join) close_join(ts, now, cpu, nullptr, 0);
    if (saved->paused.wait) record_off_cpu_wait(ts, *wait, now, cpu);
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
  if (!saved->paused.join && !saved->paused.wait) return;
  // The paused waits go on from here (the task's own waits, if any, are over). A barrier or
  // taskwait after a task that began a wait itself (a recursion of taskwaits, as fib's) records
  // only what the thread slept, out of the run queue (openmp/wait_clocks.h), where that is read
  // cheaply; else it is not recorded from then on.
  GompThread& g = own(ts);
  const uint64_t now = omprof::monotonic_ns();
  const uint64_t cpu = cpu_at(ts, now);
  uint64_t run_delay = 0;
  const bool run_delay_known = g.cpu_clock.run_delay(&run_delay);
  g.waits.resume_after_task(saved->paused, now, cpu, run_delay_known, run_delay);
}
