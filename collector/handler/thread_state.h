// Per-thread collector state: one anonymous mapping per sampled thread, made when the thread
// starts, before its clock is armed (collector/thread_registry.h owns the registry). The
// handler reads and writes only the calling thread's state.
#pragma once

#include <omp-tools.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "collector/handler/off_cpu_trail.h"
#include "collector/handler/sample_table.h"
#include "proto/journal.h"

namespace omprof::handler {

struct SamplingClock;

// A taskwait or taskgroup wait in progress on a thread (collector/ompt/ompt_tool.cc): the
// waiting task's ompt_data_t, whose word counts its outstanding children (task_children.h).
struct TaskwaitBracket {
  const void* task = nullptr;
  bool group = false;  // a taskgroup waits for descendants, which are not counted
  // The waiting task's creation record (0: none): a sample in the wait is the task's even where
  // the thread's running task is not known (libomp 14 around untied tasks).
  uint32_t origin = 0;
};
constexpr int kMaxTaskwaitBrackets = 32;

constexpr uint32_t kMaxForkNesting = 8;
constexpr uint32_t kWaitTableCapacity = 1024;

// On GNU libgomp (no OMPT), what omprof's wrappers of its entry points publish for the
// thread's signal handler (omp_inquiry.cc): written only by the thread itself, in ordinary
// context (collector/gomp_bridge.cc), with plain stores, a region's value before its state
// (a signal fence between); what the wrappers keep for themselves lives apart
// (collector/gomp_thread.h), out of the handler's reach.
struct GompPublished {
  // Whether the wrappers saw the thread fork or join a team (the rest is valid once set).
  bool thread = false;
  uint32_t state = 0;           // proto/state_codes.h
  uint64_t parallel_value = 0;  // its innermost region (parallel_value.h)
  // The thread's strata_sampled when its innermost taskwait began: a taskwait that already had
  // a sample is one that waits.
  uint64_t taskwait_strata = 0;
  // How long the thread's last region body lasted, and whether it ran a task at its region's
  // end barrier since (that wait is then not split at the last member's arrival).
  uint64_t body_ns = 0;
  bool join_ran_task = false;
  // The team barrier the thread waits in now (barrier_arrivals.h; 0: none), whether it ran a
  // task there (its wait is then not split), and its team's size.
  uint64_t barrier_tag = 0;
  bool barrier_ran_task = false;
  uint32_t team_size = 0;
};

// Starts with the journal's record of the thread (proto/journal.h: tid, times, counters), so
// that the state lives in the thread's journal block and survives the process.
struct ThreadState : journal::ThreadRecord {
  pthread_t handle{};

  // Sampling clock (collector/clocks/): the POSIX timer or the perf_event descriptor.
  const SamplingClock* clock = nullptr;
  std::atomic<bool> timer_armed{false};
  timer_t timer{};
  int perf_fd = -1;       // --clock task: the thread's perf_event task-clock
  uint64_t perf_ino = 0;  // its inode: the program may close the fd and reuse the number
  // Leaving the task clock when the thread switches too often (clock_fallback.h): the thread's
  // switches and CPU time at the last check, samples since; its CPU time when it moved to the
  // cpu clock (0: it did not) and the rate that made it move.
  uint64_t switch_check_switches = 0;
  uint64_t switch_check_cpu_ns = 0;
  uint32_t samples_since_switch_check = 0;
  uint64_t cpu_clock_from_ns = 0;
  uint64_t switches_per_cpu_s_at_move = 0;

  // Counter events (collector/counters.h): the perf_event group's leader (its inode: the
  // program may close it and reuse the number), its other members, and how many events.
  int counter_fd = -1;
  uint64_t counter_ino = 0;
  int counter_member_fds[journal::kMaxCounters - 1] = {-1, -1, -1};
  uint32_t counter_count = 0;
  uint64_t counter_sample_period = 0;  // the leader is sampled every this many events (0: not)
  int counter_signal_fd = -1;          // the sampled leader's descriptor, kept after it is closed

  // The thread's stack, [stack_low, stack_high) (collector/stack_bounds.h; 0 when unknown): the
  // handler unwinds only when enough of it is left below the interrupted frame.
  uintptr_t stack_low = 0, stack_high = 0;

  // Stratified sampling (signal_handler.cc): the offset generator (never 0). The clock's origin
  // and the strata sampled since are in the journal record.
  uint64_t rng_state = 0;

  // What the handler reads of the thread's OpenMP and explicit-region context, kept current by
  // the OMPT callbacks and the region API on this thread.
  uint32_t omp_thread_num = 0;  // number in the innermost team
  int taskwait_depth = 0;       // taskwait/taskgroup waits in progress (libomp 14: work_parallel)
  TaskwaitBracket taskwait_brackets[kMaxTaskwaitBrackets];  // the innermost at depth - 1
  const void* current_task = nullptr;  // the task this thread runs (task_schedule), if known
  // The deferred explicit task this thread runs, if its creation was recorded: its creation
  // record (ompt/task_origins.h; 0: the implicit task) and, on OMPT, its frame, whose exit frame
  // is set while the task's own code runs. Written frame last (omp_inquiry.h,
  // running_task_origin). On libgomp the wrappers' trampoline writes the record alone.
  uint32_t task_origin = 0;
  const ompt_frame_t* task_frame = nullptr;
  uint64_t task_paths_skipped = 0;  // creation paths not recorded (ompt_tool.cc, cost guard)
  const std::atomic<uint32_t>* region_node = nullptr;  // explicit-region node, if any
  // On GNU libgomp (no OMPT), what omprof's wrappers publish for the handler.
  GompPublished gomp;
  // The wrappers' own state, which the handler never reads (collector/gomp_thread.h).
  void* gomp_private = nullptr;

  // Where the thread's time off the CPU fell (off_cpu_trail.h): the handler's trail, and the
  // wall time of its measured waits and MPI calls so far (intervals.h place_measured, outside
  // the handler).
  OffCpuTrail off_cpu_trail;
  uint64_t measured_total_ns = 0;
  // When the measured wait running now began (its piece since, if it was paused for tasks; 0:
  // none, or not published: libgomp), set by the OMPT adapter (ompt/exact_waits.cc).
  uint64_t measured_open_since_ns = 0;

  // Samples that landed while the thread unwound itself (reentrancy.h, Section::kUnwinding).
  struct {
    uint64_t count = 0;
    uint64_t weight_ns = 0;
    SampleContext ctx;
  } deferred;

  // Handler statistics (written only by the owning thread's handler).
  uint32_t samples_unwound = 0;   // before the trace cache is used (signal_handler.cc)
  bool trace_cache_warm = false;  // after kSamplesBeforeTraceCache samples (signal_handler.cc)

  SampleTable table;
  // Measured OpenMP waits: written by both runtimes' adapters on this thread only, never by the
  // handler.
  SampleTable waits;
  // The OMPT callbacks' own state, which the handler never reads (collector/ompt/ompt_thread.h).
  void* ompt_private = nullptr;
  // Forks by this thread not yet counted in their fork record (ompt_tool.cc): the record this
  // thread forked last and how many times in a row, added to the record when it changes or when
  // the profile is written, instead of an atomic addition per fork (ThreadRecord's
  // uncounted_fork_id, uncounted_forks, in the journal).
  // Parallel regions this thread forked and has not joined, and when it forked each of the
  // innermost kMaxForkNesting (ompt/fork_walls.h); the fork record whose instances' wall time
  // the thread adds up, and the sum not yet added to the record.
  uint64_t fork_start_ns[kMaxForkNesting] = {};
  // The region this thread forked last at each depth (its value, parallel_value.h): its next
  // fork there wakes that region's team (collector/openmp/events.cc, fork).
  uint64_t last_fork_value[kMaxForkNesting] = {};
  // With --region-counters, the parallel regions this thread is a member of and has not
  // arrived at the end of, innermost last, with its counts at its start (ompt/member_counters.h).
  struct MemberCounts {
    uint64_t fork_id;
    uint64_t construct;  // the master's: the construct it forked (its end barrier's address)
    uint32_t instance;
    bool master;
    uint64_t start[journal::kMaxCounters];
  };
  MemberCounts member_counts[kMaxForkNesting];
  uint32_t member_depth = 0;    // may exceed kMaxForkNesting: those are not counted
  uint32_t fork_depth = 0;      // (wall_fork_id, wall_unflushed_ns: ThreadRecord's)
  bool counted_worker = false;  // among the OpenMP workers alive (idle_workers.h)
  // Region instance numbers this thread may use, taken from the process's counter in blocks.
  uint64_t next_instance = 0;
  uint64_t instances_end = 0;

  uint64_t context_switches = 0;  // at the thread's end (collector/lifecycle.cc)

  void** scratch = nullptr;                    // unwinder output, max_depth + slack
  uint64_t* frames = nullptr;                  // one captured stack
  journal::IntervalRing* intervals = nullptr;  // the timeline (intervals.h), in the block
  journal::IntervalRing* measured = nullptr;   // its measured waits (outside the handler)
  journal::EventRing* events = nullptr;        // its long regions and MPI calls (ditto)
  void* region_stats = nullptr;  // its region timer's statistics (region_api.cc), in the block
};

// The calling thread's state, or nullptr (initial-exec TLS: one memory read), also once the
// states were lost.
ThreadState* current_thread();
void set_current_thread(ThreadState* ts);
// Async-signal-safe. The journal holding every thread's state was truncated by another process
// (journal_writer.cc): what its pages held is gone, so no code may use a thread's state again.
// The collector stops measuring; the program goes on.
void mark_thread_states_lost();
bool thread_states_lost();

}  // namespace omprof::handler
