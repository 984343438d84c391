// The OpenMP waits open on one thread, for both runtimes: one stack, one entry type, each wait
// measured as its runtime's events allow (Measure):
//  - libomp's OMPT times them exactly from its wait events (barriers, taskwait and taskgroup,
//    locks, critical, ordered, a worker's wait for its next region): what each amounts to when
//    it ends, its parts in the thread's wait table and on its timeline (docs/semantics.md,
//    "Barriers" and "Idle"), is split here;
//  - omprof's libgomp wrappers see only a wrapped entry point's call and return (libgomp has no
//    wait events inside the runtime): a barrier or taskwait is measured by its time off the CPU
//    (wait_clocks.h), a lock or critical whole, and the end-of-region wait by its time off the
//    CPU too, an entry like OMPT's join waits (open_join; its split: join_close.h). The rules
//    that keep a task's time out of a wait are here for both: a task run inside a wait pauses
//    it, one rule for both (switch_moves_wait: the wait's own task stops running, and runs
//    again), and on libgomp a wait inside which another began is not recorded from then on
//    (recorded()), but for the end-of-region wait after a task.
//
// Pure: times are passed in (no clock is read here), the team's shared facts come through
// TeamFacts and the parts go to a WaitSink, so tests/unit/open_waits_test.cc and
// wait_clocks_test.cc replay whole event sequences. The adapters (collector/ompt/exact_waits.cc,
// collector/libgomp/waits.cc) read the clocks and map the runtime's kinds to omprof's states.
// Process context only, on the waiting thread; shutdown and the in-job summary read another
// thread's (close_all, so_far, join) while it is parked in the runtime.
#pragma once

#include <cstdint>

#include "collector/openmp/wait_clocks.h"
#include "proto/journal.h"
#include "proto/state_codes.h"

namespace omprof::openmp {

using SampleContext = journal::SampleContext;

// The context of a fork's overhead in the region of fork record `fork_id`, for team member
// `thread_num` in explicit region `region_node`: the forking thread's wait for its team, a
// worker's wake-up (both runtimes' adapters).
inline SampleContext fork_overhead_context(uint64_t fork_id, uint32_t thread_num,
                                           uint64_t region_node) {
  SampleContext c;
  c.omp_state = format::kOverhead;
  c.fork_id = fork_id;
  c.omp_thread_num = thread_num;
  c.region_node = region_node;
  return c;
}

// What a barrier wait is to its region: the region-end barrier, as a worker sees it (it lasts
// until the next region wakes the worker) or as the region's master sees it (its join follows).
enum class BarrierRole : uint8_t { kOther, kWorkerJoin, kMasterJoin };

// How a wait is measured: what its runtime's events allow (the profile's header says so per
// state: omp/accounting.h).
enum class Measure : uint8_t {
  kInterval,  // exact, from the runtime's begin and end events (OMPT)
  kOffCpu,    // its time off the CPU, wall minus the thread's CPU time (libgomp: a wait where
              // the runtime runs tasks, whose CPU time the samples see)
  kWhole,     // wall time from the wrapped call to its return (libgomp: locks, critical)
  kNone,      // not measured (sampled only: libgomp's cost guard, a state not timed)
};

// An OpenMP wait in progress on a thread.
struct OpenWait {
  Measure measure = Measure::kInterval;
  bool ran_tasks = false;       // it ran tasks (a barrier's split is then not known)
  uint64_t codeptr = 0;         // the construct's return address - 1 (0 if unknown)
  uint64_t first_start_ns = 0;  // when it began
  // The waiting task: OMPT's task data, or on libgomp the frame of the trampoline that runs
  // it (the implicit task's: run_body's); it cannot be another task's while the wait lasts.
  const void* task = nullptr;
  // A team barrier's slot, where the team's longest span is (OMPT) or its members' arrivals are
  // counted (libgomp); 0: none.
  uint64_t barrier_key = 0;
  // kOffCpu, kWhole, kNone (libgomp): the clocks (wait_clocks.h), and when they are a cheap
  // clock's mark (clocks/switch_watch.h), the thread's switch word then.
  WaitClock clock;
  bool clock_marked = false;
  uint32_t switch_seq = 0;
  // With the wait's state (libgomp's clocked waits: only the state, the rest is read when
  // the wait is recorded).
  SampleContext ctx;
  // kInterval (OMPT):
  uint64_t start_ns = 0;         // when it last started running; 0 while its task is switched out
  uint64_t done_ns = 0;          // waited before the last switch-out
  uint64_t placed_ns = 0;        // of it, on the timeline already (pieces before tasks it ran)
  uint64_t span_ns = 0;          // a barrier's: this thread's span since its last sync point
  uint64_t wait_id = 0;          // mutex waits: the lock
  uint32_t region_instance = 0;  // worker join: the region whose end splits barrier and idle
  BarrierRole role = BarrierRole::kOther;
  bool is_mutex = false;
};
// Whether `w` is libgomp's end-of-region wait (OpenWaits::open_join), whose own rules at a task
// switch are written in open_waits.cc: it pauses even after a wait began inside it, and resumes
// afresh.
inline bool is_clocked_join(const OpenWait& w) {
  return w.measure != Measure::kInterval && w.role != BarrierRole::kOther;
}

// Deeper waits are not measured (counted: Thread.waits_dropped). A recursion of tasks that each
// wait for their children nests one wait a level on libgomp.
constexpr int kMaxOpenWaits = 64;

// What the waits of a thread's team share (collector/ompt/barrier_spans.h,
// collector/handler/region_ends.h), behind an interface so that tests can design them.
class TeamFacts {
 public:
  // The slot of the `number`th barrier of region `instance` (0: none).
  virtual uint64_t barrier_key(uint32_t instance, uint32_t number) const = 0;
  // This thread arrived at barrier `key` `span_ns` after its last synchronization point.
  virtual void publish_span(uint64_t key, uint64_t span_ns) = 0;
  // The team's longest span at barrier `key`, or `own_span_ns` if that is longer or none is known.
  virtual uint64_t longest_span(uint64_t key, uint64_t own_span_ns) const = 0;
  // Whether region `instance` ended, and when.
  virtual bool region_ended(uint32_t instance, uint64_t* end_ns) const = 0;
  // When the fork that wakes worker `thread_num` of region `instance`, waiting since the region
  // ended, happened (0: none yet, not known, or a team without this worker), and its fork
  // record (*fork_id).
  virtual uint64_t waking_fork(uint32_t instance, uint32_t thread_num, uint64_t* fork_id) const = 0;

 protected:
  ~TeamFacts() = default;
};

// Where a wait's parts go: the thread's wait table (per construct and context) and its timeline
// (a piece of `ns` that ended at `end_ns`).
class WaitSink {
 public:
  virtual void record(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) = 0;
  virtual void place(uint64_t end_ns, uint64_t ns, const SampleContext& ctx) = 0;

 protected:
  ~WaitSink() = default;
};

// Receives the parts of a wait, one at a time.
class WaitParts {
 public:
  virtual void part(uint64_t codeptr, const SampleContext& ctx, uint64_t ns) = 0;

 protected:
  ~WaitParts() = default;
};

// A wait that begins: `ctx.omp_state` is its state.
struct WaitStart {
  uint64_t codeptr = 0;
  SampleContext ctx;
  const void* task = nullptr;
  uint32_t region_instance = 0;
  BarrierRole role = BarrierRole::kOther;
  bool is_barrier = false;  // its parts split by the team's spans
  bool is_mutex = false;
  uint64_t wait_id = 0;
};

// A piece of libgomp's end-of-region wait: from its (re)start, its time off the CPU, and
// whether it is recorded (no wait began inside it but in tasks that paused it).
struct JoinPiece {
  uint64_t start_ns = 0;
  uint64_t off_ns = 0;
  bool recorded = false;
};

// The wait an end event closed.
struct EndedWait {
  bool closed = false;  // false: none was open (its begin did not fit, or came before the tool)
  BarrierRole role = BarrierRole::kOther;
  uint32_t region_instance = 0;
};

class OpenWaits {
 public:
  // The thread's synchronization point in its region: its implicit task began, `now_ns`.
  void region_began(uint64_t now_ns);
  // The number of the team barrier (every member meets it, in the same order) the thread meets
  // now in its region, from 1: where the team's spans (OMPT) or arrivals (libgomp) are kept.
  uint32_t number_barrier() { return ++barrier_number_; }
  // An exactly timed wait (kInterval) begins. Returns false when the stack of open waits is
  // full (the wait is not measured: count it).
  bool begin(const WaitStart& start, uint64_t now_ns, TeamFacts& team);
  // The innermost sync wait ends (a mutex one still open was a failed test_lock: dropped).
  EndedWait end(uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // Mutex `wait_id` was acquired: its wait ends, if it is the innermost.
  bool end_mutex(uint64_t wait_id, uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // Both runtimes: whether the thread's switch to `next_task` pauses the innermost wait (its
  // task stops running: the thread runs another, work) or resumes it (its task runs again);
  // other switches cost no clock read. Switched out is "the wait runs and the next task is
  // another", not the runtime's word for the prior task (libomp 14 names an untied task
  // resumed from a barrier as the prior one). A mutex wait never pauses (no task runs there),
  // nor a clocked one not recorded off the CPU (kWhole, kNone, or a wait begun inside it; the
  // end-of-region wait pauses even then, and is recorded again after the task).
  bool switch_moves_wait(const void* next_task) const;
  // OMPT's action at such a switch to `next_task` at `now_ns`: an exact wait's piece so far
  // goes on the timeline where it was (its table entry waits for its end); it resumes when its
  // task runs again.
  void task_switch(const void* next_task, uint64_t now_ns, WaitSink& sink);
  // libgomp: a wait of task `task` at `codeptr` in `state` (the rest of its context is read
  // when it is recorded), measured by its clocks (`how`: kOffCpu, kWhole or kNone), read at its
  // begin (`now_ns`, `cpu_ns`; 0: not read). Every wait counts in the thread's epoch, the
  // innermost recorded one ends the recording of those around it (recorded()). Returns the
  // wait, to complete (its team barrier, its clock's mark), or null when the stack is full
  // (count it).
  OpenWait* begin_clocked(const void* task, uint64_t codeptr, uint32_t state, Measure how,
                          uint64_t now_ns, uint64_t cpu_ns);
  // Whether clocked wait `w`'s time off the CPU since its (re)start is recorded (at its end, or
  // when a task pauses it): it is measured off the CPU and no wait began inside it.
  bool recorded(const OpenWait& w) const {
    return w.clock.cpu_start_ns != 0 && w.clock.epoch == epoch_;
  }
  // The innermost wait ends and leaves the stack (a clocked one, which its adapter records):
  // returned, valid until the next begin; null if none is open.
  const OpenWait* pop() { return depth_ > 0 ? &waits_[--depth_] : nullptr; }

  // libgomp's end-of-region wait, the region-end barrier's wait as OMPT's kWorkerJoin and
  // kMasterJoin entries are on libomp: opened at the end of the body (no other wait is open
  // then) in `ctx` (the barrier's state) by the implicit task `task`, a worker's or the master's
  // (`role`), measured by its time off the CPU from (`now_ns`, `cpu_ns`) (`how`: kOffCpu, or
  // kNone under the cost guard); closed at the master's join, the worker's next region or
  // shutdown (close_join), its time off the CPU split by join_close.h. A task run there pauses
  // it by the one switch rule, whether or not a wait began inside it meanwhile, and it resumes
  // afresh after the task, whatever the task did (the idle time after it matters).
  void open_join(const void* task, const SampleContext& ctx, BarrierRole role, Measure how,
                 uint64_t now_ns, uint64_t cpu_ns);
  // The end-of-region wait when it is the innermost wait and not paused by a task (null: it is
  // not, or none is open).
  const OpenWait* join() const;
  // Its piece since its (re)start, to `now_ns` (the thread's CPU clock then: `cpu_ns`).
  JoinPiece join_piece(uint64_t now_ns, uint64_t cpu_ns) const;
  // It ends (leaves the stack).
  void close_join() {
    if (join()) --depth_;
  }

  // libgomp's actions at a switch that moves the innermost wait (switch_moves_wait; a task
  // runs through omprof's trampoline and ends). pause_clocked: the wait pauses (the adapter has
  // recorded its piece up to now; a task run at once inside the task that paused it leaves it
  // so). resume_clocked: its task runs again, from `now_ns`. If the task it ran began no wait,
  // the wait goes on; if it did (a recursion of taskwaits, as fib's), the thread's time off the
  // CPU there may be its preemption in the runtime's task dispatch as much as its sleep waiting
  // for children run elsewhere: it goes on as sleep_only when the thread's time in the run
  // queue is known (`run_delay_ns`, known: `run_delay_known`), else it is not recorded from
  // then on. The end-of-region wait goes on afresh in any case.
  void pause_clocked();
  void resume_clocked(uint64_t now_ns, uint64_t cpu_ns, bool run_delay_known = false,
                      uint64_t run_delay_ns = 0);

  // Every open exact wait closed at `now_ns`, innermost first (shutdown; libgomp's clocked
  // waits are not closed there, their threads are parked outside them).
  void close_all(uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // What the open exact waits would record if they ended at `now_ns`, leaving them open.
  void so_far(uint64_t now_ns, const TeamFacts& team, WaitParts& parts) const;

  // When the innermost wait began running (its piece since the tasks it ran), 0 when it is
  // paused or none is open: the measured time running now.
  uint64_t running_since_ns() const { return depth_ ? waits_[depth_ - 1].start_ns : 0; }
  int depth() const { return depth_; }
  const OpenWait& outermost() const { return waits_[0]; }
  // The innermost open wait (null: none).
  const OpenWait* innermost() const { return depth_ > 0 ? &waits_[depth_ - 1] : nullptr; }
  OpenWait* innermost() { return depth_ > 0 ? &waits_[depth_ - 1] : nullptr; }

 private:
  void drop_failed_test_lock();
  void close(const OpenWait& w, uint64_t now_ns, const TeamFacts& team, WaitSink& sink) const;

  OpenWait waits_[kMaxOpenWaits];
  int depth_ = 0;  // grown last, when the wait is complete: another thread may read it
  // The last synchronization point in the region (implicit task start, departure from a
  // barrier) and the barriers met there so far.
  uint64_t sync_point_ns_ = 0;
  uint32_t barrier_number_ = 0;
  // libgomp: the waits begun on the thread (this one included).
  uint64_t epoch_ = 0;
};

// The parts a wait amounts to if it ends at `now_ns`, in the order they happened: one piece, a
// barrier's in waiting and synchronization, a worker's join in barrier, idle, and woken for its
// next region (that region's fork overhead, from its fork on).
void split_open_wait(const OpenWait& w, uint64_t now_ns, const TeamFacts& team, WaitParts& parts);

}  // namespace omprof::openmp
