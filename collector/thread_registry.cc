#include "collector/thread_registry.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "collector/handler/intervals.h"
#include "collector/handler/sampling_state.h"
#include "collector/handler/stack_capture.h"
#include "collector/journal_writer.h"
#include "collector/runtime.h"
#include "collector/timeline_events.h"

namespace omprof {

namespace {

struct Registry {
  ThreadState** slots = nullptr;
  uint32_t capacity = 0;
  std::atomic<uint32_t> count{0};
  std::atomic<uint64_t> untracked{0};
  uint32_t before_start = 0;  // written once, in the collector's constructor
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

namespace {

struct BlockLayout {
  // Offsets in the block, and its size.
  uint64_t samples, waits, scratch, frames, intervals, measured, events, regions, bytes;
};

BlockLayout block_layout(const Config& cfg) {
  BlockLayout l{};
  l.samples = (sizeof(ThreadState) + 63) & ~uint64_t(63);
  l.waits = l.samples + SampleTable::bytes_needed(cfg.max_contexts, cfg.frame_pool);
  l.waits = (l.waits + 63) & ~uint64_t(63);
  l.scratch =
      l.waits + SampleTable::bytes_needed(handler::kWaitTableCapacity, handler::kWaitTableCapacity);
  l.frames = l.scratch + sizeof(void*) * (cfg.max_depth + handler::kSignalSlack);
  l.intervals = l.frames + sizeof(uint64_t) * (cfg.max_depth + handler::kSignalSlack);
  l.intervals = (l.intervals + 63) & ~uint64_t(63);
  l.measured = l.intervals + sizeof(journal::IntervalRing);
  l.measured = (l.measured + 63) & ~uint64_t(63);
  l.events = l.measured + sizeof(journal::IntervalRing);
  l.events = (l.events + 63) & ~uint64_t(63);
  l.regions = l.events + sizeof(journal::EventRing);
  l.regions = (l.regions + 63) & ~uint64_t(63);
  const uint64_t end =
      l.regions + sizeof(journal::RegionStatsRecord) * journal::kJournalRegionNodes;
  l.bytes = (end + journal::kPage - 1) & ~(journal::kPage - 1);
  return l;
}

// The thread's block: in the journal (durable), else anonymous memory.
void* allocate_block(uint32_t index, uint64_t bytes) {
  if (void* mem = journal::map_thread_block(index)) return mem;
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  if (journal::FileHeader* h = journal::journal_header()) h->threads_not_durable.fetch_add(1);
  return mem;
}

void count_untracked() {
  registry().untracked.fetch_add(1);
  if (journal::FileHeader* h = journal::journal_header()) h->threads_untracked.fetch_add(1);
}

}  // namespace

uint64_t thread_block_bytes() {
  return block_layout(runtime().config).bytes;
}

ThreadState* register_current_thread(bool is_main) {
  const Config& cfg = runtime().config;
  Registry& reg = registry();
  if (!reg.slots) {
    // The first call comes from the library constructor, before any other thread exists.
    reg.capacity = cfg.max_threads;
    reg.slots = new ThreadState*[reg.capacity]();
  }
  uint32_t index = reg.count.fetch_add(1);
  if (index >= reg.capacity) {
    reg.count.fetch_sub(1);
    count_untracked();
    return nullptr;
  }
  const BlockLayout l = block_layout(cfg);
  void* mem = allocate_block(index, l.bytes);
  if (!mem) {
    reg.slots[index] = nullptr;
    count_untracked();
    return nullptr;
  }
  auto* ts = new (mem) ThreadState;
  char* base = static_cast<char*>(mem);
  ts->table.init(base + l.samples, cfg.max_contexts, cfg.frame_pool);
  ts->waits.init(base + l.waits, handler::kWaitTableCapacity, handler::kWaitTableCapacity);
  ts->scratch = reinterpret_cast<void**>(base + l.scratch);
  ts->frames = reinterpret_cast<uint64_t*>(base + l.frames);
  ts->intervals = reinterpret_cast<journal::IntervalRing*>(base + l.intervals);
  handler::init_interval_ring(ts->intervals, cfg.interval_ns, runtime().start_mono_ns);
  ts->measured = reinterpret_cast<journal::IntervalRing*>(base + l.measured);
  handler::init_interval_ring(ts->measured, cfg.interval_ns, runtime().start_mono_ns);
  ts->events = reinterpret_cast<journal::EventRing*>(base + l.events);
  init_event_ring(ts->events, cfg.event_min_ns);
  ts->events_offset = l.events;
  ts->region_stats = base + l.regions;
  ts->regions_offset = l.regions;
  ts->intervals_offset = l.intervals;
  ts->measured_offset = l.measured;
  ts->samples_offset = l.samples;
  ts->waits_offset = l.waits;
  ts->sample_capacity = cfg.max_contexts;
  ts->sample_frames = cfg.frame_pool;
  ts->wait_capacity = ts->wait_frames = handler::kWaitTableCapacity;
  ts->index = index;
  ts->tid = pid_t(syscall(SYS_gettid));
  ts->handle = pthread_self();
  ts->is_main = is_main;
  ts->rng_state = (uint64_t(ts->tid) << 32) ^ handler::monotonic_ns() ^ 0x9e3779b97f4a7c15ULL;
  if (ts->rng_state == 0) ts->rng_state = 1;
  ts->start_ns = handler::monotonic_ns() - runtime().start_mono_ns;
  ts->off_cpu_trail.mono_ns = runtime().start_mono_ns + ts->start_ns;
  if (is_main) handler::warm_up_process();
  handler::set_current_thread(ts);
  ts->ready.store(1, std::memory_order_release);  // the journal's readers take the block now
  // Publish last, so that the writer never sees a half-built state.
  __atomic_store_n(&reg.slots[index], ts, __ATOMIC_RELEASE);
  return ts;
}

void detach_threads_in_child() {
  for (uint32_t i = 0; i < thread_count(); ++i)
    if (ThreadState* ts = thread_at(i)) journal::remap_private(ts, i);
  journal::detach_in_child();
}

uint32_t thread_count() {
  Registry& reg = registry();
  uint32_t n = reg.count.load();
  return n < reg.capacity ? n : reg.capacity;
}

ThreadState* thread_at(uint32_t i) {
  return __atomic_load_n(&registry().slots[i], __ATOMIC_ACQUIRE);
}

uint64_t threads_untracked() {
  return registry().untracked.load();
}

void count_threads_before_start() {
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return;
  const long self = syscall(SYS_gettid);
  uint32_t others = 0;
  while (const dirent* e = readdir(tasks))
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && std::atol(e->d_name) != self) ++others;
  closedir(tasks);
  registry().before_start = others;
  if (journal::FileHeader* h = journal::journal_header()) h->threads_before_start = others;
}

uint32_t threads_before_start() {
  return registry().before_start;
}

}  // namespace omprof
