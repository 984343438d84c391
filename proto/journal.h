// The journal's fixed layout (docs/format.md, "The journal"): what the collector keeps in a
// shared file mapping while the program runs, so that the kernel holds everything measured even
// if the process dies (SIGKILL, the OOM killer). Plain data at fixed offsets, no pointers:
// written in the profiled process (the signal handler included, with plain stores, no system
// calls) and read by proto/journal_reader.cc in another process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace omprof::journal {

// The first 8 bytes of a journal file.
constexpr char kMagic[8] = {'\x89', 'O', 'M', 'P', 'J', 'N', 'L', '\n'};
// 2: SampleEntry.cpu_ns; 3: SampleContext.task_origin; 4: ThreadRecord.short_stack_samples;
// 5: ThreadRecord.parallel_wall_ns; 6: SampleEntry.idle_blame_ns; 7: ThreadRecord.run_delay_ns,
// involuntary_switches; 8: ThreadRecord.cpu_mask; 9: ThreadRecord.unmeasured_waits;
// 10: SampleEntry.counters, ThreadRecord.counter_totals, counter_errno; 11: the interval ring;
// 12: the measured-wait interval ring, the event ring, region statistics, fork counts;
// 13: ThreadRecord.counter_enabled_ns, counter_running_ns; FileHeader.threads_before_start;
// RegionStatsRecord.counters; ForkCounts.counters; IntervalRecord.lead_slot;
// ThreadRecord.omp_wait_state, omp_wait_start_mono_ns; 14: SampleEntry.off_cpu_seen_ns
constexpr uint32_t kVersion = 14;
// Counter events per thread (proto/counter_events.h, kMaxCounters).
constexpr size_t kMaxCounters = 4;
constexpr uint64_t kPage = 4096;
// File name suffix: <program>.<pid>[.<n>].ompjournal, next to the profiles.
constexpr const char* kSuffix = ".ompjournal";

// At offset 0, one page. Written once at creation, except the atomic counters.
struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t max_threads;
  uint64_t entries_offset;  // the entry area: [entries_offset, entries_offset + entries_capacity)
  uint64_t entries_capacity;
  uint64_t blocks_offset;  // thread i's block: blocks_offset + i * block_bytes
  uint64_t block_bytes;
  uint64_t thread_record_bytes;            // sizeof(ThreadRecord) as written (a reader checks it)
  uint64_t start_mono_ns;                  // CLOCK_MONOTONIC at collector start
  std::atomic<uint64_t> entries_reserved;  // bytes of the entry area handed out
  std::atomic<uint64_t> entries_dropped;   // entries that did not fit
  std::atomic<uint32_t> threads;           // blocks handed out (some may be unused: see ready)
  uint32_t threads_before_start;           // threads the process had when the collector started

  std::atomic<uint64_t> threads_untracked;  // beyond max_threads, or no block could be mapped
  std::atomic<uint64_t> timer_create_failures;
  std::atomic<uint64_t> fork_records_dropped;
  std::atomic<uint64_t> threads_not_durable;  // blocks in anonymous memory (journal unusable)
  // ForkCounts[forks_capacity] (version 12): fork record id i's at forks_offset + (i - 1) x
  // sizeof(ForkCounts), kept there by the collector as it counts (0: none).
  uint64_t forks_offset;
  uint64_t forks_capacity;
};
static_assert(sizeof(FileHeader) <= kPage);

// A fork record's counts (docs/format.md "The journal"): the regions forked from it (a thread
// counts a run of forks of one record in its ThreadRecord and adds them when it forks another),
// the encountering thread's fork-to-join wall time (the same, in ThreadRecord.wall_unflushed_ns)
// and the team sizes seen (bit k: k + 1 threads; 64 or more: bit 63); with --region-counters
// (version 13), the counter events its team members counted in it (ompt/member_counters.h).
constexpr uint32_t kJournalForks = 1 << 16;
struct ForkCounts {
  std::atomic<uint64_t> instances;
  std::atomic<uint64_t> wall_ns;
  std::atomic<uint64_t> team_size_mask;
  std::atomic<uint64_t> counters[kMaxCounters];
};

// An entry of the entry area, 8-byte aligned: this header, then `length` bytes of a serialized
// omprof.v1.JournalEntry. `length` is stored right after the space is reserved and `committed`
// (1) once the bytes are in place: a reader skips uncommitted entries and stops at a zero length.
struct EntryHeader {
  std::atomic<uint32_t> length;
  std::atomic<uint32_t> committed;
};
constexpr uint64_t entry_bytes(uint64_t length) {
  return (sizeof(EntryHeader) + length + 7) & ~uint64_t(7);
}

// What a sample knows besides its stack. Compared as a whole when aggregating.
struct SampleContext {
  uint32_t omp_state = 0;
  uint32_t omp_thread_num = 0;
  uint64_t fork_id = 0;
  uint64_t region_node = 0;
  uint64_t task_origin = 0;  // the fork table's record of the running task's creation (1.9)
  bool operator==(const SampleContext& o) const {
    return omp_state == o.omp_state && omp_thread_num == o.omp_thread_num && fork_id == o.fork_id &&
           region_node == o.region_node && task_origin == o.task_origin;
  }
};

// SampleEntry::flags: what is known to be missing from a stack.
constexpr uint16_t kStackTruncated = 1;     // deeper than the depth limit; the root side is cut
constexpr uint16_t kStackUnwindFailed = 2;  // only the interrupted pc is known

struct SampleEntry {
  uint64_t hash;  // 0 = empty slot
  uint32_t frame_offset;
  uint16_t depth;
  uint16_t flags;  // kStack*
  SampleContext ctx;
  uint64_t count;  // 0 while the entry is being filled
  uint64_t weight_ns;
  uint64_t cpu_ns;           // exact waits with a measured CPU time (MPI calls, OMPROF_MPI_CPU=1)
  uint64_t idle_blame_ns;    // OpenMP workers' idle time blamed on it (handler/idle_workers.h)
  uint64_t off_cpu_seen_ns;  // version 14: the thread's time off the CPU its samples saw
  uint64_t counters[kMaxCounters];  // counter events since the thread's previous sample
};

// A sample table's memory: this header, SampleEntry[capacity], uint32_t order[capacity] (the
// slot of the k-th entry added), uint64_t frames[frame_capacity]. Only its thread writes it.
struct TableHeader {
  uint32_t capacity;  // a power of two
  uint32_t frame_capacity;
  uint32_t used;
  uint32_t frames_used;
  uint64_t dropped_samples;
  uint64_t dropped_weight_ns;
};
struct TableLayout {
  uint64_t entries, order, frames, bytes;  // offsets from the table's start, and its size
};
constexpr TableLayout table_layout(uint32_t capacity, uint32_t frame_capacity) {
  TableLayout l{};
  l.entries = (sizeof(TableHeader) + 63) & ~uint64_t(63);
  l.order = l.entries + uint64_t(capacity) * sizeof(SampleEntry);
  l.frames = (l.order + uint64_t(capacity) * sizeof(uint32_t) + 7) & ~uint64_t(7);
  l.bytes = l.frames + uint64_t(frame_capacity) * sizeof(uint64_t);
  return l;
}

// The timeline (docs/format.md "Timeline"): a thread's time per interval of the run, by class of
// thread state (proto/timeline.h), in two rings: its samples' (written only by its signal
// handler) and its measured waits' (written only outside it: OMPT callbacks, omprof's libgomp
// and MPI wrappers, on the thread). Record i covers [i, i + 1) x interval_ns from the run's
// start; when time falls beyond the last record, pairs of records are merged and interval_ns
// doubles (older detail coarsened, never dropped). `seq` is odd while the writer changes the
// ring: a reader in another process copies it between two equal even reads.
constexpr size_t kTimelineClasses = 8;
constexpr uint32_t kIntervalLeads = 4;
struct IntervalRecord {
  uint64_t ns[kTimelineClasses];    // time by class (proto/timeline.h)
  uint32_t samples;                 // samples, or measured waits (parts of one)
  uint32_t last_state;              // the latest one's thread state
  uint64_t fork_id;                 // the latest one's parallel region (0: none)
  uint64_t region_node;             // the latest one's explicit region (0: none)
  uint64_t counters[kMaxCounters];  // the samples' counter events (sample ring only)
  // The interval's leads (sample ring only, version 13): kIntervalLeads of its samples picked
  // at random (reservoir sampling, timeline::pick_lead), each as its entry in the thread's
  // sample table (slot + 1; 0: none): what the thread ran then, for a call tree of a time range.
  uint32_t lead_slot[kIntervalLeads];
};
constexpr uint32_t kIntervalCapacity = 4096;
struct IntervalRing {
  std::atomic<uint32_t> seq;
  uint32_t capacity;
  uint32_t used;         // records [0, used) may hold time
  uint32_t coarsenings;  // times the records were merged in pairs
  uint64_t interval_ns;
  uint64_t origin_mono_ns;  // CLOCK_MONOTONIC at the run's start (FileHeader::start_mono_ns)
  // The writer's own: the record it wrote last and the times it covers (ns from the origin), so
  // that the next time in it costs a comparison, not a division. Readers ignore them.
  uint64_t hint_from_ns, hint_to_ns;
  uint32_t hint_index;
  uint32_t lead_random;  // the writer's random state for its leads (timeline::pick_lead)
  IntervalRecord records[kIntervalCapacity];
};

// The timeline's exact events (docs/format.md "Timeline"): a thread's explicit region instances
// and MPI calls that lasted `min_ns` or more, with their times (ns from the run's start), in the
// order they ended. Written only outside the signal handler, on the thread. When the ring is
// full, `min_ns` doubles and the shorter events go (counted in `dropped`) until one fits.
constexpr uint32_t kEventCapacity = 2048;
enum EventKind : uint32_t { kEventRegion = 1, kEventMpi = 2 };
struct EventRecord {
  uint64_t start_ns, end_ns;
  uint32_t kind;  // EventKind
  uint32_t id;    // the explicit region's node, or the MPI call (proto/mpi_calls.h)
  uint64_t site;  // the MPI call's return address (0: none)
};
struct EventRing {
  std::atomic<uint32_t> seq;
  uint32_t capacity;
  uint32_t used;
  uint32_t raises;  // times min_ns doubled
  uint64_t min_ns;
  uint64_t dropped;
  EventRecord events[kEventCapacity];
};

// A thread's explicit-region statistics (docs/format.md "The journal"): per region node below
// kJournalRegionNodes (indexed by its id), the calls and the inclusive wall and CPU time of its
// closed instances. The thread's region timer keeps them here itself (regions/thread_timer.h
// use_storage), so a recovered profile has the numbers the profile would have had.
constexpr uint32_t kJournalRegionNodes = 1024;
struct RegionStatsRecord {
  int64_t calls, wall_ns, cpu_ns;
  int64_t counters[kMaxCounters];  // version 13: exact counts (--region-counters), inclusive
};

// A ring's writer marks it as changing for the scope's life: `seq` odd, then even again, the
// fences keeping the ring's stores between the two (a reader: proto/interval_ring.h
// read_unchanged). Async-signal-safe.
class RingChange {
 public:
  explicit RingChange(std::atomic<uint32_t>& seq) : seq_(seq) {
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  ~RingChange() {
    std::atomic_thread_fence(std::memory_order_release);
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  RingChange(const RingChange&) = delete;
  RingChange& operator=(const RingChange&) = delete;

 private:
  std::atomic<uint32_t>& seq_;
};

// At the start of each thread's block. The collector's per-thread state begins with it, so the
// handler's stores land in the file.
struct ThreadRecord {
  std::atomic<uint32_t> ready{0};  // 1 once the thread is registered and the rest is valid
  uint32_t index = 0;
  int32_t tid = 0;
  bool is_main = false;
  bool is_omp_thread = false;
  bool mpi_library_thread = false;  // started inside an MPI call: the MPI library's own thread
  uint64_t start_ns = 0;            // relative to the run start
  std::atomic<uint64_t> end_ns{0};
  std::atomic<uint64_t> cpu_ns_at_exit{0};
  uint64_t truncated_samples = 0;
  uint64_t unwind_failed = 0;
  uint32_t sampling_lost = 0;  // format::kLost*
  int32_t timer_errno = 0;
  uint64_t armed_clock_ns = 0;  // sampling clock time while the clock was armed (set at the end)
  uint64_t strata_sampled = 0;
  uint64_t grid_origin_ns = 0;  // the sampling clock when it was armed
  uint64_t last_clock_ns = 0;   // the sampling clock at the latest sample
  uint64_t open_waits_overflow = 0;
  uint64_t samples_offset = 0;  // the sample table, from the block's start
  uint64_t waits_offset = 0;    // the exact-wait table
  uint32_t sample_capacity = 0, sample_frames = 0;
  uint32_t wait_capacity = 0, wait_frames = 0;
  uint64_t short_stack_samples = 0;  // taken without unwinding: too little stack was left
  // CLOCK_MONOTONIC at the thread's latest sample: how long a process that died without
  // saying when still ran (the file's mtime is not updated by stores to a shared mapping).
  uint64_t last_sample_mono_ns = 0;
  // The intercepted MPI call the thread is in (proto/mpi_calls.h), 0 outside MPI; set by the
  // MPI wrappers, read by the handler. With it, for a process that dies inside the call (a
  // deadlocked job ended by a signal), the call's start, site and context: a reader counts
  // the call as MPI time up to the end.
  std::atomic<uint32_t> mpi_call{0};
  // The OpenMP wait the thread is in, its outermost one (its state, proto/state_codes.h; 0:
  // none), since omp_wait_start_mono_ns (version 13): set by the waits' adapters when it begins
  // (the time first, then the state) and cleared when it ends. What a live reader shows as what
  // the thread does now, as mpi_call for MPI (collector/open_wait.h).
  std::atomic<uint32_t> omp_wait_state{0};
  uint64_t mpi_call_start_mono_ns = 0;
  uint64_t mpi_call_site = 0;  // the return address in the program, minus 1
  SampleContext mpi_call_context;
  // Wall time inside the parallel regions the thread forked, outermost ones (ompt/fork_walls.h).
  uint64_t parallel_wall_ns = 0;
  // At the thread's end (collector/machine_load.h).
  uint64_t run_delay_ns = 0;
  uint64_t involuntary_switches = 0;
  uint64_t cpu_mask[16] = {};  // the CPUs it may run on (bit k: CPU k), at its end
  // libgomp: waits the cost guard left unmeasured (collector/libgomp/regions.cc).
  uint64_t unmeasured_waits = 0;
  // Counter events (collector/counters.h): the thread's counts so far (as of its latest sample,
  // whole at its end), and why its counters could not be opened (0: they were, or none asked).
  uint64_t counter_totals[kMaxCounters] = {};
  int32_t counter_errno = 0;
  uint32_t counter_samples_lost = 0;  // event samples not recorded (unwinding)
  // The group's time enabled and on the CPU's counters, as of the latest reading.
  uint64_t counter_enabled_ns = 0;
  uint64_t counter_running_ns = 0;
  uint64_t omp_wait_start_mono_ns = 0;  // (omp_wait_state's)
  uint64_t intervals_offset = 0;        // the IntervalRing, from the block's start (0: none)
  uint64_t measured_offset = 0;         // the measured waits' IntervalRing (0: none)
  uint64_t events_offset = 0;           // the EventRing (0: none)
  uint64_t regions_offset = 0;          // RegionStatsRecord[kJournalRegionNodes] (0: none)
  // Forks counted by this thread but not yet added to their record's ForkCounts (the
  // collector's batching: openmp/fork_records.cc); a reader adds them.
  uint64_t uncounted_fork_id = 0;
  uint64_t uncounted_forks = 0;
  uint64_t wall_fork_id = 0;
  uint64_t wall_unflushed_ns = 0;
};

}  // namespace omprof::journal
