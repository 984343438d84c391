// Per-thread collector state: one anonymous mapping per sampled thread, made when the thread
// starts, before its clock is armed (collector/thread_registry.h owns the registry). The
// handler reads and writes only the calling thread's state.
#pragma once

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "collector/handler/hot_flag.h"
#include "collector/handler/off_cpu_trail.h"
#include "collector/handler/omp_published.h"
#include "collector/handler/sample_table.h"
#include "proto/journal.h"

namespace omprof::handler {

struct SamplingClock;

constexpr uint32_t kMaxForkNesting = 8;
constexpr uint32_t kWaitTableCapacity = 1024;

// The OpenMP event model's per-thread bookkeeping (collector/openmp/events.h and what it calls:
// fork walls, member counters, region instances, task paths), kept by both runtimes' adapters in
// process context (idle_workers.h's count too). The signal handler never reads it: it reads
// OmpPublished.
struct OmpProcessState {
  // When the thread forked each of the innermost kMaxForkNesting regions it has not joined
  // (ompt/fork_walls.h; the depth is OmpPublished::fork_depth).
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
  bool counted_worker = false;  // among the OpenMP workers alive (idle_workers.h)
  // Region instance numbers this thread may use, taken from the process's counter in blocks.
  uint64_t next_instance = 0;
  uint64_t instances_end = 0;
  uint64_t task_paths_skipped = 0;  // creation paths not recorded (ompt_tool.cc, cost guard)
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

  // What the OpenMP adapters publish for the handler (omp_published.h).
  OmpPublished omp;
  const std::atomic<uint32_t>* region_node = nullptr;  // explicit-region node, if any
  // State the handler never reads: the OpenMP event model's (collector/openmp/thread_model.h,
  // the waits open on the thread, for both adapters) and each adapter's own, the OMPT
  // callbacks' (collector/ompt/ompt_thread.h) and the libgomp wrappers'
  // (collector/libgomp/gomp_thread.h).
  void* omp_model = nullptr;
  void* ompt_private = nullptr;
  void* gomp_private = nullptr;

  // Where the thread's time off the CPU fell (off_cpu_trail.h): the handler's trail, and the
  // wall time of its measured waits and MPI calls so far (intervals.h place_measured, outside
  // the handler).
  OffCpuTrail off_cpu_trail;
  uint64_t measured_total_ns = 0;

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
  // The OpenMP event model's bookkeeping, in process context (OmpProcessState).
  OmpProcessState omp_process;

  uint64_t context_switches = 0;  // at the thread's end (collector/lifecycle.cc)

  void** scratch = nullptr;                    // unwinder output, max_depth + slack
  uint64_t* frames = nullptr;                  // one captured stack
  journal::IntervalRing* intervals = nullptr;  // the timeline (intervals.h), in the block
  journal::IntervalRing* measured = nullptr;   // its measured waits (outside the handler)
  journal::EventRing* events = nullptr;        // its long regions and MPI calls (ditto)
  void* region_stats = nullptr;  // its region timer's statistics (region_api.cc), in the block
};

// The calling thread's state and whether the states were lost: read through current_thread and
// thread_states_lost only (thread_state.cc defines them). Plain __thread, not thread_local: no
// initialization wrapper to call from other files.
extern __thread ThreadState* t_current_thread __attribute__((tls_model("initial-exec")));
extern HotFlag g_thread_states_lost;

// The calling thread's state, or nullptr (initial-exec TLS: one memory read), also once the
// states were lost. Inline: every OMPT callback and wrapper asks first (an out-of-line call was
// 2% of a task-heavy program's time under omprof).
inline ThreadState* current_thread() {
  return g_thread_states_lost.relaxed() ? nullptr : t_current_thread;
}
void set_current_thread(ThreadState* ts);
// Async-signal-safe. The journal holding every thread's state was truncated by another process
// (journal_writer.cc): what its pages held is gone, so no code may use a thread's state again.
// The collector stops measuring; the program goes on.
void mark_thread_states_lost();
inline bool thread_states_lost() {
  return g_thread_states_lost.relaxed();
}

}  // namespace omprof::handler
