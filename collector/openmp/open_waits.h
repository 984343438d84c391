// The OpenMP waits open on one thread, timed exactly from the runtime's wait events (libomp's
// OMPT: barriers, taskwait and taskgroup, locks, critical, ordered, a worker's wait for its next
// region), and what each amounts to when it ends: its parts in the thread's wait table and on its
// timeline (docs/semantics.md, "Barriers" and "Idle").
//
// Pure: times are passed in (no clock is read here), the team's shared facts come through
// TeamFacts and the parts go to a WaitSink, so tests/unit/open_waits_test.cc replays whole event
// sequences. The OMPT adapter (collector/ompt/exact_waits.cc) reads the clock and maps the
// runtime's kinds to omprof's states. Process context only, on the waiting thread; shutdown and
// the in-job summary read another thread's (close_all, so_far) while it is parked in the runtime.
#pragma once

#include <cstdint>

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

// An OpenMP wait in progress on a thread.
struct OpenWait {
  uint64_t start_ns = 0;         // when it last started running; 0 while its task is switched out
  uint64_t first_start_ns = 0;   // when it began
  uint64_t done_ns = 0;          // waited before the last switch-out
  uint64_t placed_ns = 0;        // of it, on the timeline already (pieces before tasks it ran)
  uint64_t codeptr = 0;          // the construct's return address - 1 (0 if unknown)
  uint64_t wait_id = 0;          // mutex waits: the lock
  const void* task = nullptr;    // the waiting task
  SampleContext ctx;             // with the wait's state
  uint32_t region_instance = 0;  // worker join: the region whose end splits barrier and idle
  BarrierRole role = BarrierRole::kOther;
  bool is_mutex = false;
  // Barriers: the slot where the team's longest span is (0: none), this thread's span, and
  // whether the wait ran tasks (its split is then not known).
  uint64_t barrier_key = 0;
  uint64_t span_ns = 0;
  bool ran_tasks = false;
};
constexpr int kMaxOpenWaits = 16;

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
  // Returns false when the stack of open waits is full (the wait is not measured: count it).
  bool begin(const WaitStart& start, uint64_t now_ns, TeamFacts& team);
  // The innermost sync wait ends (a mutex one still open was a failed test_lock: dropped).
  EndedWait end(uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // Mutex `wait_id` was acquired: its wait ends, if it is the innermost.
  bool end_mutex(uint64_t wait_id, uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // Whether a switch to `next_task` pauses or resumes the innermost wait (then call
  // task_switch with the time): other switches cost no clock read.
  bool switch_moves_wait(const void* next_task) const;
  // The thread switched to `next_task` at `now_ns`: a wait whose task stops running pauses (the
  // thread runs other tasks: work) and its piece so far goes on the timeline where it was; it
  // resumes when its task runs again.
  void task_switch(const void* next_task, uint64_t now_ns, WaitSink& sink);
  // Every open wait closed at `now_ns`, innermost first (shutdown).
  void close_all(uint64_t now_ns, const TeamFacts& team, WaitSink& sink);
  // What the open waits would record if they ended at `now_ns`, leaving them open.
  void so_far(uint64_t now_ns, const TeamFacts& team, WaitParts& parts) const;

  // When the innermost wait began running (its piece since the tasks it ran), 0 when it is
  // paused or none is open: the measured time running now.
  uint64_t running_since_ns() const { return depth_ ? waits_[depth_ - 1].start_ns : 0; }
  int depth() const { return depth_; }
  const OpenWait& outermost() const { return waits_[0]; }
  // The innermost open wait (null: none).
  const OpenWait* innermost() const { return depth_ > 0 ? &waits_[depth_ - 1] : nullptr; }

 private:
  void drop_failed_test_lock();
  void close(const OpenWait& w, uint64_t now_ns, const TeamFacts& team, WaitSink& sink) const;

  OpenWait waits_[kMaxOpenWaits];
  int depth_ = 0;  // grown last, when the wait is complete: another thread may read it
  // The last synchronization point in the region (implicit task start, departure from a
  // barrier) and the barriers met there so far.
  uint64_t sync_point_ns_ = 0;
  uint32_t barrier_number_ = 0;
};

// The parts a wait amounts to if it ends at `now_ns`, in the order they happened: one piece, a
// barrier's in waiting and synchronization, a worker's join in barrier, idle, and woken for its
// next region (that region's fork overhead, from its fork on).
void split_open_wait(const OpenWait& w, uint64_t now_ns, const TeamFacts& team, WaitParts& parts);

}  // namespace omprof::openmp
