#include "collector/ompt/ompt_tool.h"

#include <omp-tools.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "collector/handler/idle_workers.h"
#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/region_ends.h"
#include "collector/handler/signal_handler.h"
#include "collector/handler/stack_capture.h"
#include "collector/handler/task_children.h"
#include "collector/journal_writer.h"
#include "collector/modules.h"
#include "collector/ompt/exact_waits.h"
#include "collector/ompt/fork_walls.h"
#include "collector/ompt/task_origins.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "proto/fields.h"
#include "proto/text.h"
#include "unwind/module_kind.h"

namespace omprof::ompt {

namespace {

namespace pv = handler::parallel_value;

ompt_get_parallel_info_t g_get_parallel_info = nullptr;
ompt_get_task_info_t g_get_task_info = nullptr;
std::atomic<bool> g_ompt_ever{false};
std::atomic<bool> g_gomp_wrappers{false};  // note_gomp_wrappers
std::atomic<uint32_t> g_region_instances{0};

constexpr uint32_t kMaxForkRecords = 1 << 16;
constexpr uint32_t kMaxTaskNesting = 4;  // task records under task records (intern_fork)

struct ForkRecord {
  uint64_t parent_id;
  std::vector<uint64_t> frames;
  bool truncated;
  bool task;  // a task construct's creation path (on_task_create)
  uint64_t codeptr;
  std::atomic<uint64_t> instances{0};
  std::atomic<uint64_t> wall_ns{0};
  std::atomic<uint64_t> team_size_mask{0};  // bit k: a team of k+1 threads (64+ -> bit 63)
};

struct VecHash {
  size_t operator()(const std::vector<uint64_t>& v) const {
    size_t h = v.size();
    for (uint64_t x : v) h = (h ^ x) * 0x100000001b3ULL;
    return h;
  }
};

// Never destroyed (callbacks can run after static destructors).
struct ForkTable {
  std::mutex mu;
  std::unordered_map<std::vector<uint64_t>, uint64_t, VecHash> ids;  // key: parent + frames
  ForkRecord* records[kMaxForkRecords] = {};
  std::atomic<uint32_t> count{0};
  std::atomic<uint64_t> dropped{0};
};
ForkTable& forks() {
  static ForkTable* t = new ForkTable;
  return *t;
}

// Per-thread memo of fork call paths, so that a region forked again from the same call path
// (a loop around a parallel construct) costs no unwind. Keyed by the construct's return
// address, the encountering task's frame address and the enclosing region. An entry keeps the
// stack addresses of every return address of the path (found once, with a slow unwind); a
// later fork with the same key reads them: the same starting frame and the same return
// addresses at the same places mean the same call chain. A key whose check keeps failing (two
// call paths alternating at the same stack depth) falls back to a fast unwind each time.
//
// A task path is cut at the creating task's exit frame, so the same chain recurs at any stack
// depth (a task run inside another's taskwait): its key leaves the frame address out, and the
// check reads the slots at the same offsets from the new exit frame (the same return addresses
// at the same places relative to it are the same chain).
struct MemoEntry {
  uint64_t codeptr = 0;
  uint64_t key_frame = 0;  // the frame address for a fork, 0 for a task
  uint64_t anchor = 0;     // where the slots were found from: a fork's frame, a task's cut
  uint64_t parent = 0;
  uint64_t id = 0;
  bool verifiable = false;
  uint32_t misses = 0;
  uint64_t last_use = 0;          // ForkScratch::memo_clock at its last hit or fill
  std::vector<uint64_t> slots;    // stack addresses of the return addresses
  std::vector<uint64_t> returns;  // the return addresses expected there
};
// Set-associative: real codes have dozens of fork sites (LULESH about 30), which a small
// direct-mapped table made collide, sending colliding sites to the slow path each fork; and a
// task construct is reached by several chains with one key (its creating task's record is
// shared by the tasks folded into it), each of which keeps its own way.
constexpr size_t kMemoSets = 256;
constexpr size_t kMemoWays = 4;
constexpr uint32_t kMaxMemoMisses = 4;

struct ForkScratch {
  MemoEntry* last_fork = nullptr;  // the way the last fork hit or filled (a loop's fork site)
  void* raw[4096 + 64];
  uint64_t frames[4096 + 64];
  uint64_t slots[4096 + 64];
  MemoEntry memo[kMemoSets * kMemoWays];
  uint64_t memo_clock = 0;
  // The cost guard on task creation paths (on_task_create): this thread's recorded creations,
  // how many of them unwound, and whether it stopped recording.
  uint64_t task_paths = 0;
  uint64_t task_unwinds = 0;
  bool task_paths_off = false;
};
// A thread stops recording task creation paths once more than 1 in 8 of them needed an unwind
// (after 1,024): each unwind costs microseconds, the program's task a fraction of that.
constexpr uint64_t kTaskGuardAfter = 1024;
constexpr uint64_t kTaskGuardRatio = 8;

// Whether the live stack still holds the memoized path. Only slots in this thread's live stack
// (at or above this frame) are read.
bool memo_matches(const MemoEntry& m, uint64_t anchor, bool task) {
  const uint64_t live = reinterpret_cast<uint64_t>(__builtin_frame_address(0));
  const uint64_t shift = anchor - m.anchor;  // 0 for a fork (the frame is in its key)
  // Only this thread's live stack is read: above this frame, and for a task below the cut.
  const uint64_t end = task ? anchor : UINT64_MAX;
  for (size_t i = 0; i < m.slots.size(); ++i) {
    const uint64_t slot = m.slots[i] + shift;
    if (slot < live || slot >= end || *reinterpret_cast<const uint64_t*>(slot) != m.returns[i])
      return false;
  }
  return true;
}

ForkScratch* fork_scratch() {
  static thread_local ForkScratch* s __attribute__((tls_model("initial-exec"))) = nullptr;
  if (!s) s = new ForkScratch;
  return s;
}

bool plausible_pointer(const void* p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  return v >= 4096 && (v & 7) == 0 && v < (uintptr_t(1) << 47);
}

uint64_t enclosing_fork_id() {
  return pv::fork_id(handler::innermost_parallel_value());
}

uint64_t intern_fork(ForkScratch* s, const handler::CaptureResult& r, uint64_t parent,
                     const void* codeptr_ra, bool task);
uint64_t folded_task_record(uint64_t parent, uint64_t codeptr);

// Interns the encountering thread's call path (with its enclosing context `parent`) as a fork
// record: a parallel construct's whole stack, or (`task`) a task construct's path from the
// runtime's call of the creating task's code (`cut_frame`, its OMPT exit frame) on.
uint64_t record_path(const void* codeptr_ra, const void* enter_frame, uint64_t parent, bool task,
                     uint64_t cut_frame) {
  const uint32_t max_depth = runtime().config.max_depth;
  ForkScratch* s = fork_scratch();
  ThreadState* ts = current_thread();
  const uint64_t codeptr = reinterpret_cast<uint64_t>(codeptr_ra);
  // A task whose record folds into one of its creators' (recursion) needs no path.
  if (task && codeptr)
    if (const uint64_t folded = folded_task_record(parent, codeptr - 1)) return folded;
  uint64_t frame = reinterpret_cast<uint64_t>(enter_frame);
  const uint64_t context = parent | (uint64_t(task) << 63);
  if (task) frame = cut_frame;  // the anchor; 0 (no cut): no memo, a fast unwind each time
  const uint64_t key_frame = task ? 0 : frame;
  auto key_of = [&](const MemoEntry& e) {
    return e.id && e.codeptr == codeptr && e.key_frame == key_frame && e.parent == context;
  };
  // A loop around a parallel construct forks from the same way each time.
  if (MemoEntry* last = s->last_fork;
      !task && last && key_of(*last) && last->verifiable && memo_matches(*last, frame, false)) {
    last->last_use = ++s->memo_clock;
    return last->id;
  }
  MemoEntry* set =
      &s->memo[(((codeptr * 0x9e3779b97f4a7c15ULL) ^ key_frame ^ (context << 17)) >> 7) %
               kMemoSets * kMemoWays];
  // A way with this key whose path is still on the stack; else the way to refill: an empty
  // one, else one with this key (its path changed), else the one that has missed most.
  for (size_t w = 0; w < kMemoWays; ++w) {
    MemoEntry& e = set[w];
    if (key_of(e) && e.verifiable && memo_matches(e, frame, task)) {
      e.last_use = ++s->memo_clock;
      if (!task) s->last_fork = &e;
      return e.id;
    }
  }
  // Least recently used: several paths with one key (an untied task's creating function called
  // from each part of its task's code) keep a way each.
  MemoEntry* victim = &set[0];
  for (size_t w = 1; w < kMemoWays && victim->id != 0; ++w)
    if (set[w].id == 0 || set[w].last_use < victim->last_use) victim = &set[w];
  MemoEntry& m = *victim;
  const bool same_key = key_of(m);

  if (frame && (!same_key || task || m.misses < kMaxMemoMisses)) {
    if (task) ++s->task_unwinds;
    // First fork from here (or the path changed): one slow unwind that also finds the slots.
    handler::SlotCaptureResult r =
        handler::capture_current_stack_slots(s->frames, s->slots, max_depth, 1, cut_frame);
    if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
    const uint64_t id = intern_fork(s, r, parent, codeptr_ra, task);
    if (id) {
      m.misses = same_key ? m.misses + 1 : 0;
      m.last_use = ++s->memo_clock;
      m.codeptr = codeptr;
      m.key_frame = key_frame;
      m.anchor = frame;
      m.parent = context;
      m.id = id;
      m.verifiable = r.slots_valid && !r.truncated;
      m.slots.assign(s->slots, s->slots + r.depth);
      m.returns.resize(r.depth);
      for (uint32_t i = 0; i < r.depth; ++i) m.returns[i] = s->frames[i] + 1;
      if (!task) s->last_fork = &m;
    }
    return id;
  }

  // No frame address, or a key whose check keeps failing: a fast unwind every time (a task's
  // path must be cut: the slow unwind, which knows where each frame is).
  if (task && cut_frame) {
    ++s->task_unwinds;
    handler::SlotCaptureResult r =
        handler::capture_current_stack_slots(s->frames, s->slots, max_depth, 1, cut_frame);
    if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
    return intern_fork(s, r, parent, codeptr_ra, task);
  }
  handler::CaptureResult r = handler::capture_current_stack(s->raw, s->frames, max_depth, 1);
  if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
  return intern_fork(s, r, parent, codeptr_ra, task);
}

uint64_t record_fork(const void* codeptr_ra, const void* enter_frame) {
  return record_path(codeptr_ra, enter_frame, enclosing_fork_id(), false, 0);
}

// A new fork record goes to the journal (journal_writer.h) as it is made.
void journal_fork(uint64_t id, const ForkRecord& rec) {
  namespace J = format::fields::JournalFork;
  wire::Encoder e;
  e.u64(J::kId, id);
  e.u64(J::kParentId, rec.parent_id);
  e.packed(J::kFrame, rec.frames.begin(), rec.frames.end());
  e.boolean(J::kTruncated, rec.truncated);
  e.u64(J::kCodeptr, rec.codeptr);
  e.boolean(J::kTask, rec.task);
  journal::append_entry(format::fields::JournalEntry::kFork, e);
}

ForkRecord* record_by_id(uint64_t id) {
  ForkTable& t = forks();
  if (id == 0 || id > t.count.load()) return nullptr;
  return t.records[id - 1];
}

// Recursive task creation folds: a task created at a construct (`codeptr`, a return address - 1)
// that already created one of its creating tasks shares that task's record, and tasks nest at
// most kMaxTaskNesting deep (deeper ones share their creating task's record, `parent`), so that
// records stay as many as the program's chains of distinct task constructs, not the nodes of
// its recursion (a construct in a recursive function is reached from each of the others' task
// bodies). Returns that record, or 0 when the task gets a record of its own. Depends on the
// creating record and the construct only, never on the path (records do not change once made,
// and are read without the table's lock), so a folded creation needs no unwind.
uint64_t folded_task_record(uint64_t parent, uint64_t codeptr) {
  uint32_t nesting = 0;
  for (uint64_t id = parent; id && nesting < 256; ++nesting) {
    const ForkRecord* a = record_by_id(id);
    if (!a || !a->task) break;
    if (a->codeptr == codeptr) return id;
    id = a->parent_id;
  }
  return nesting >= kMaxTaskNesting ? parent : 0;
}

uint64_t intern_fork(ForkScratch* s, const handler::CaptureResult& r, uint64_t parent,
                     const void* codeptr_ra, bool task) {
  const uint64_t codeptr = codeptr_ra ? reinterpret_cast<uintptr_t>(codeptr_ra) - 1 : 0;
  std::vector<uint64_t> key;
  key.reserve(r.depth + 3);
  key.push_back(parent);
  key.push_back(uint64_t(r.truncated) | (uint64_t(task) << 1));
  key.insert(key.end(), s->frames, s->frames + r.depth);

  ForkTable& t = forks();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(key);
  if (it != t.ids.end()) return it->second;
  if (task) {  // record_path folds before it unwinds; a path found without it may fold too
    if (const uint64_t folded = folded_task_record(parent, codeptr)) {
      t.ids.emplace(std::move(key), folded);
      return folded;
    }
  }
  uint32_t index = t.count.load();
  if (index >= kMaxForkRecords) {
    t.dropped.fetch_add(1);
    return 0;
  }
  auto* rec = new ForkRecord;
  rec->parent_id = parent;
  rec->frames.assign(s->frames, s->frames + r.depth);
  rec->truncated = r.truncated;
  rec->task = task;
  rec->codeptr = codeptr;
  t.records[index] = rec;
  t.count.store(index + 1);
  const uint64_t id = index + 1;
  t.ids.emplace(std::move(key), id);
  journal_fork(id, *rec);
  return id;
}

SampleContext wait_context(const ThreadState* ts, const ompt_data_t* parallel_data);
void set_running_task(ThreadState* ts, uint32_t origin, const ompt_frame_t* frame);
uint64_t construct_address(const void* codeptr_ra);

// What omprof stored in a region's parallel_data (parallel_value.h), from the calling thread's
// copy when it has one: the master's from its fork, a member's from its implicit task's start.
// parallel_data lives in libomp's team structure, on a cache line the team's threads write at
// their barriers; reading it at the join cost the master a cache miss per region.
uint64_t value_of(const ThreadState* ts, const ompt_data_t* parallel_data) {
  if (ts && ts->known_parallel == parallel_data) return ts->known_parallel_value;
  return parallel_data->value;
}
void remember_value(ThreadState* ts, const ompt_data_t* parallel_data, uint64_t value) {
  if (!ts) return;
  ts->known_parallel = parallel_data;
  ts->known_parallel_value = value;
}

void on_thread_begin(ompt_thread_t type, ompt_data_t* thread_data) {
  thread_data->value = 1;
  if (ThreadState* ts = current_thread()) {
    ts->is_omp_thread = true;
    if (type == ompt_thread_worker) handler::count_omp_worker(ts);
  }
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t* encountering_frame,
                       ompt_data_t* parallel_data, unsigned, int, const void* codeptr_ra) {
  const void* enter = encountering_frame && plausible_pointer(encountering_frame->enter_frame.ptr)
                          ? encountering_frame->enter_frame.ptr
                          : nullptr;
  const uint64_t value = begin_parallel_region(codeptr_ra, enter);
  parallel_data->value = value;
  if (ThreadState* ts = current_thread()) {  // fork bookkeeping starts (omprof's own cost excluded)
    remember_value(ts, parallel_data, value);
    ts->overhead_since_ns = monotonic_ns();
    note_fork_time(ts, ts->overhead_since_ns);
    ts->overhead_codeptr = construct_address(codeptr_ra);
    ts->forked_construct = ts->overhead_codeptr;
  }
}

// Closes the fork or join bookkeeping interval that is in progress on this thread. Returns the
// time it read (0 if none was in progress).
uint64_t end_overhead(const ompt_data_t* parallel_data) {
  ThreadState* ts = current_thread();
  if (!ts || !ts->overhead_since_ns) return 0;
  const uint64_t now = monotonic_ns();
  if (now > ts->overhead_since_ns)
    record_overhead(ts, ts->overhead_codeptr, wait_context(ts, parallel_data),
                    now - ts->overhead_since_ns);
  ts->overhead_since_ns = 0;
  ts->overhead_codeptr = 0;
  return now;
}

void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t*, int, const void*) {
  uint64_t now = end_overhead(parallel_data);  // the master's join bookkeeping
  if (!now) now = monotonic_ns();
  // Only omprof's own memory is written here: parallel_data shares its cache line with what
  // libomp's barriers spin on (region_ends.h).
  ThreadState* ts = current_thread();
  const uint64_t value = value_of(ts, parallel_data);
  handler::note_region_end(pv::instance(value), now);
  note_join_time(ts, pv::fork_id(value), now);
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t*,
                      unsigned actual_parallelism, unsigned index, int flags) {
  if (flags & ompt_task_initial) return;  // the initial task of a thread, not a team member
  if (endpoint == ompt_scope_end && index == 0) {
    if (ThreadState* ts = current_thread()) {
      // The master's join bookkeeping started when it left the region's end barrier (libomp
      // passes no parallel_data here: the region is the one this thread last knew).
      const uint32_t instance = pv::instance(ts->known_parallel_value);
      const bool left = instance && ts->join_left_instance == instance && ts->join_left_ns;
      ts->overhead_since_ns = left ? ts->join_left_ns : monotonic_ns();
      ts->overhead_codeptr = 0;
      ts->join_left_ns = 0;
    }
  }
  if (endpoint == ompt_scope_begin) {
    if (!parallel_data) return;
    const uint64_t value = parallel_data->value;  // read fresh: the region is new to this thread
    ThreadState* ts = current_thread();
    if (ts) {
      ts->omp_thread_num = index;
      remember_value(ts, parallel_data, value);
      ts->running_depth = 0;  // the implicit task: no creation record
      if (ts->task_origin || ts->task_frame) set_running_task(ts, 0, nullptr);
    }
    const uint64_t now = end_overhead(parallel_data);  // fork, or a worker's since its wake-up
    if (ts) {  // the region's first synchronization point (ompt/barrier_spans.h)
      ts->sync_point_ns = now ? now : monotonic_ns();
      ts->barrier_number = 0;
    }
    begin_team_member(value, index, actual_parallelism);
  }
}

// The context an exact wait is attributed to: the innermost region (as samples see it), the
// thread's number in it and its explicit region.
SampleContext wait_context(const ThreadState* ts, const ompt_data_t* parallel_data) {
  SampleContext ctx;
  if (plausible_pointer(parallel_data)) {
    ctx.fork_id = pv::fork_id(value_of(ts, parallel_data));
    if (ctx.fork_id && ts) ctx.omp_thread_num = ts->omp_thread_num;
  }
  ctx.region_node = current_region_node();
  if (ts) ctx.task_origin = handler::running_task_origin(ts);
  return ctx;
}

uint64_t construct_address(const void* codeptr_ra) {
  return codeptr_ra ? reinterpret_cast<uint64_t>(codeptr_ra) - 1 : 0;
}

void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t* parallel_data, ompt_data_t* task_data,
                         const void* codeptr_ra) {
  ThreadState* ts = current_thread();
  if (!ts) return;
  if (kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup) {
    // The handler reads the innermost bracket at depth - 1: written before the depth grows,
    // left after it shrinks (the task may be freed once its wait ends).
    if (endpoint == ompt_scope_begin) {
      if (ts->taskwait_depth < handler::kMaxTaskwaitBrackets) {
        auto& b = ts->taskwait_brackets[ts->taskwait_depth];
        b.task = task_data;
        b.group = kind == ompt_sync_region_taskgroup;
      }
      ts->current_task = task_data;  // the waiting task runs here, by definition
      std::atomic_signal_fence(std::memory_order_release);
      ++ts->taskwait_depth;
    } else if (ts->taskwait_depth > 0) {
      --ts->taskwait_depth;
      std::atomic_signal_fence(std::memory_order_release);
      ts->current_task = task_data;
    }
    // Sampled, not timed: a task-heavy program calls this twice per task (docs/semantics.md).
    if (!taskwait_exact()) return;
  }
  if (endpoint != ompt_scope_begin) {
    wait_end_sync(ts);
    return;
  }
  // A worker's wait at the end of its region has no code pointer (libomp 14): it lasts until
  // the next region wakes the worker, so its tail is idle. The master's carries the parallel
  // construct's (a worksharing construct's barrier carries its own).
  const bool region_end = kind == ompt_sync_region_barrier_implicit ||
                          kind == ompt_sync_region_barrier_implicit_parallel;
  BarrierRole role = BarrierRole::kOther;
  if (region_end && !codeptr_ra && ts->omp_thread_num != 0)
    role = BarrierRole::kWorkerJoin;
  else if (region_end && codeptr_ra && ts->omp_thread_num == 0 &&
           construct_address(codeptr_ra) == ts->forked_construct)
    role = BarrierRole::kMasterJoin;
  const uint32_t instance =
      plausible_pointer(parallel_data) ? pv::instance(value_of(ts, parallel_data)) : 0;
  wait_begin_sync(ts, int(kind), construct_address(codeptr_ra), task_data,
                  wait_context(ts, parallel_data), instance, role);
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned, unsigned, ompt_wait_id_t wait_id,
                      const void* codeptr_ra) {
  ThreadState* ts = current_thread();
  if (!ts) return;
  ompt_data_t* pd = nullptr;
  int size = 0;
  if (!(g_get_parallel_info && g_get_parallel_info(0, &pd, &size) == 2)) pd = nullptr;
  wait_begin_mutex(ts, int(kind), wait_id, construct_address(codeptr_ra), wait_context(ts, pd));
}

void on_mutex_acquired(ompt_mutex_t, ompt_wait_id_t wait_id, const void*) {
  if (ThreadState* ts = current_thread()) wait_end_mutex(ts, wait_id);
}

// Whether deferred tasks' creation paths are recorded: on unless OMPROF_TASK_PATHS=0 (for cost
// comparisons in bench/). Read once, outside signal context.
bool task_paths() {
  static const bool on = [] {
    const char* v = std::getenv("OMPROF_TASK_PATHS");
    return !(v && *v == '0');
  }();
  return on;
}

// The task the thread runs from now on, for the handler (thread_state.h: frame written last).
void set_running_task(ThreadState* ts, uint32_t origin, const ompt_frame_t* frame) {
  ts->task_frame = nullptr;
  std::atomic_signal_fence(std::memory_order_release);
  ts->task_origin = origin;
  std::atomic_signal_fence(std::memory_order_release);
  ts->task_frame = frame;
}

// A starting task's OMPT frame: libomp makes the task current before it calls task_schedule.
const ompt_frame_t* starting_task_frame(const ompt_data_t* task) {
  ompt_data_t* current = nullptr;
  ompt_frame_t* frame = nullptr;
  if (g_get_task_info && g_get_task_info(0, nullptr, &current, &frame, nullptr, nullptr) &&
      current == task && plausible_pointer(frame))
    return frame;
  return nullptr;
}

// `next` starts (or is switched to after a yield): a deferred task's origin was recorded at
// its creation; an undeferred one runs inline in its creator, whose origin it keeps.
void task_began(ThreadState* ts, const ompt_data_t* next) {
  handler::RunningTask r;
  r.task = next;
  if (next && handler::task_children::linked(&next->value)) {
    r.origin = task_origins::find(next);
    if (r.origin) r.frame = starting_task_frame(next);
  } else {
    r.origin = ts->task_origin;
    r.frame = ts->task_frame;
  }
  if (ts->running_depth < handler::kMaxRunningTasks) ts->running_tasks[ts->running_depth] = r;
  ++ts->running_depth;
  set_running_task(ts, r.origin, r.frame);
}

// The task that ran ended (completed, cancelled or detached): the thread resumes `next`, below
// it on this thread's stack of running tasks (an implicit task is not on it).
void task_ended(ThreadState* ts, const ompt_data_t* next) {
  while (ts->running_depth > 0) {
    const int top = ts->running_depth - 1;
    if (top < handler::kMaxRunningTasks && ts->running_tasks[top].task == next) break;
    --ts->running_depth;
    if (top >= handler::kMaxRunningTasks) break;  // not kept: assume the innermost ended
  }
  const int top = ts->running_depth - 1;
  if (top >= 0 && top < handler::kMaxRunningTasks)
    set_running_task(ts, ts->running_tasks[top].origin, ts->running_tasks[top].frame);
  else
    set_running_task(ts, 0, nullptr);
}

void on_task_schedule(ompt_data_t* prior_task, ompt_task_status_t status, ompt_data_t* next_task) {
  if (status == ompt_task_complete || status == ompt_task_late_fulfill ||
      status == ompt_task_cancel) {
    if (prior_task && handler::task_children::linked(&prior_task->value))
      task_origins::erase(prior_task);
    handler::task_children::completed(prior_task ? &prior_task->value : nullptr);
  }
  // A fulfilment completes a detached task from wherever its event is fulfilled: no switch.
  if (status == ompt_task_late_fulfill || status == ompt_task_early_fulfill) return;
  if (ThreadState* ts = current_thread()) {
    ts->current_task = next_task;
    if (status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_detach)
      task_ended(ts, next_task);
    else
      task_began(ts, next_task);
    wait_task_switch(ts, prior_task, next_task);
  }
}

}  // namespace

uint32_t record_task_creation(const void* codeptr_ra, const void* enter_frame, uint64_t parent,
                              uint64_t cut_frame) {
  if (!task_paths()) return 0;
  ForkScratch* scratch = fork_scratch();
  if (scratch->task_paths_off) {
    // Per thread: a shared counter would cost a cache miss.
    if (ThreadState* ts = current_thread()) ++ts->task_paths_skipped;
    return 0;
  }
  const uint64_t id = record_path(codeptr_ra, enter_frame, parent, true, cut_frame);
  if (++scratch->task_paths >= kTaskGuardAfter &&
      scratch->task_unwinds * kTaskGuardRatio > scratch->task_paths)
    scratch->task_paths_off = true;
  return uint32_t(id);
}

namespace {

// Deferred tasks are counted in their parent, so that a taskwait knows whether it has anything
// to wait for (task_children.h); undeferred ones (if(0), included, a serial team's) complete
// before their parent goes on, under its stack. A deferred task may run on any thread, later:
// its creation path is recorded here (with the fork records' memo) and found again when it runs.
void on_task_create(ompt_data_t* encountering_task, const ompt_frame_t* encountering_frame,
                    ompt_data_t* new_task, int flags, int, const void* codeptr_ra) {
  if (!(flags & ompt_task_explicit) || (flags & ompt_task_undeferred) || !encountering_task ||
      !new_task)
    return;
  if (!handler::task_children::created(&encountering_task->value, &new_task->value)) return;
  if (!task_paths()) return;
  // The creating context: the creating task's own record (the one this thread runs, as a rule),
  // else the innermost region.
  ThreadState* ts = current_thread();
  uint64_t parent = 0;
  if (ts && ts->current_task == encountering_task)
    parent = ts->task_origin;
  else if (handler::task_children::linked(&encountering_task->value))
    parent = task_origins::find(encountering_task);
  if (!parent) parent = enclosing_fork_id();
  const void* enter = nullptr;
  uint64_t cut = 0;
  if (encountering_frame) {
    if (plausible_pointer(encountering_frame->enter_frame.ptr))
      enter = encountering_frame->enter_frame.ptr;
    if (plausible_pointer(encountering_frame->exit_frame.ptr))
      cut = reinterpret_cast<uint64_t>(encountering_frame->exit_frame.ptr);
  }
  const uint32_t id = record_task_creation(codeptr_ra, enter, parent, cut);
  // Not counted in the record's instances: one atomic on a line every thread writes cost more
  // than the rest of the path (BOTS health: 7 million tasks in 5 s).
  if (id) task_origins::insert(new_task, id);
}

int tool_initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  auto get_state = reinterpret_cast<ompt_get_state_t>(lookup("ompt_get_state"));
  auto get_thread_data = reinterpret_cast<ompt_get_thread_data_t>(lookup("ompt_get_thread_data"));
  g_get_parallel_info =
      reinterpret_cast<ompt_get_parallel_info_t>(lookup("ompt_get_parallel_info"));
  g_get_task_info = reinterpret_cast<ompt_get_task_info_t>(lookup("ompt_get_task_info"));
  if (!set_callback || !get_state || !get_thread_data || !g_get_parallel_info) return 0;
  // Work comes from samples (with ompt_get_state in the handler); waits from exact intervals.
  set_callback(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(on_thread_begin));
  set_callback(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(on_parallel_begin));
  set_callback(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(on_parallel_end));
  set_callback(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(on_implicit_task));
  set_callback(ompt_callback_sync_region_wait,
               reinterpret_cast<ompt_callback_t>(on_sync_region_wait));
  // Exact waits (omp/exact_waits.h): two clock reads per lock acquisition and per task switch
  // inside a wait.
  set_callback(ompt_callback_mutex_acquire, reinterpret_cast<ompt_callback_t>(on_mutex_acquire));
  set_callback(ompt_callback_mutex_acquired, reinterpret_cast<ompt_callback_t>(on_mutex_acquired));
  set_callback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(on_task_schedule));
  set_callback(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(on_task_create));
  if (ThreadState* ts = current_thread()) ts->is_omp_thread = true;
  g_ompt_ever.store(true);
  handler::set_ompt_inquiry(get_state, get_thread_data, g_get_parallel_info);
  journal_runtime_status(recorded_modules());
  return 1;
}

void tool_finalize(ompt_data_t*) {
  // Samples taken from here on are plain samples; the profile is written by the collector's
  // shutdown, which owns the ordering with timers and handlers.
  handler::clear_ompt_inquiry();
}

}  // namespace

namespace {

constexpr uint64_t kInstanceBlock = 64;

// A number for a new region instance: 1 to 2^21 - 1 (0 is "none", parallel_value.h), unique
// among the instances in flight. Each thread takes a block of numbers at a time from the
// process's counter, whose cache line a fork then touches once per block, not every time.
uint64_t new_instance(ThreadState* ts) {
  uint64_t n = 0;
  if (!ts) {
    n = g_region_instances.fetch_add(1, std::memory_order_relaxed);
  } else {
    if (ts->next_instance == ts->instances_end) {
      ts->next_instance = g_region_instances.fetch_add(kInstanceBlock, std::memory_order_relaxed);
      ts->instances_end = ts->next_instance + kInstanceBlock;
    }
    n = ts->next_instance++;
  }
  return n % pv::kInstanceMask + 1;
}

// One more instance of fork record `fork_id`, counted by the thread until it forks another.
void count_fork(ThreadState* ts, uint64_t fork_id) {
  if (ts && ts->uncounted_fork_id == fork_id) {
    ++ts->uncounted_forks;
    return;
  }
  if (!ts) {
    if (ForkRecord* rec = record_by_id(fork_id))
      rec->instances.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (ForkRecord* rec = record_by_id(ts->uncounted_fork_id))
    rec->instances.fetch_add(ts->uncounted_forks, std::memory_order_relaxed);
  ts->uncounted_fork_id = fork_id;
  ts->uncounted_forks = 1;
}

}  // namespace

uint64_t begin_parallel_region(const void* codeptr_ra, const void* enter_frame) {
  const uint64_t fork_id = record_fork(codeptr_ra, enter_frame);
  const uint64_t node = current_region_node();
  ThreadState* ts = current_thread();
  const uint64_t instance = new_instance(ts);
  count_fork(ts, fork_id);
  return pv::pack(fork_id, node, instance);
}

void begin_team_member(uint64_t value, unsigned index, unsigned team_size) {
  // Workers nest their explicit regions under the master's region at the fork.
  if (index != 0) inherit_region_context(pv::node(value));
  if (index != 0) return;
  if (ForkRecord* rec = record_by_id(pv::fork_id(value))) {
    const unsigned bit = team_size == 0 ? 0 : (team_size > 64 ? 63 : team_size - 1);
    const uint64_t size_bit = uint64_t(1) << bit;
    if (!(rec->team_size_mask.load(std::memory_order_relaxed) & size_bit))
      rec->team_size_mask.fetch_or(size_bit, std::memory_order_relaxed);
  }
}

void add_fork_wall(uint64_t fork_id, uint64_t wall_ns) {
  if (ForkRecord* rec = record_by_id(fork_id)) rec->wall_ns.fetch_add(wall_ns);
}

namespace {
std::string& version_text() {
  static auto* v = new std::string;  // never destroyed: read at shutdown
  return *v;
}
}  // namespace

void note_runtime_version(const char* version) {
  if (version) version_text() = version;
}

bool ompt_ever() {
  return g_ompt_ever.load(std::memory_order_relaxed);
}

void note_gomp_wrappers() {
  g_gomp_wrappers.store(true);
  journal_runtime_status(recorded_modules());
}

RuntimeStatus runtime_status(const std::vector<unwind::Module>& modules) {
  RuntimeStatus s;
  s.ompt_active = g_ompt_ever.load();
  s.version = version_text();
  s.off_cpu_waits = !s.ompt_active && g_gomp_wrappers.load();
  for (const auto& m : modules) {
    if (unwind::is_omprof_module(m.path) || !unwind::is_omp_runtime_module(m.path)) continue;
    const std::string f = text::base_name(m.path);
    s.runtime = f;
    char resolved[4096];
    if (realpath(m.path.c_str(), resolved)) {
      std::string real = text::base_name(resolved);
      if (real != f) s.runtime += " -> " + real;
    }
    break;
  }
  if (!s.runtime.empty() && !s.ompt_active) {
    const bool gnu =
        s.runtime.rfind("libgomp", 0) == 0 && s.runtime.find("libomp") == std::string::npos;
    if (gnu && g_gomp_wrappers.load())
      s.note =
          "GNU libgomp has no OMPT: states and user-model stacks come from omprof's wrappers "
          "of its entry points; waits are sampled on the CPU and measured off it; taskloop "
          "tasks are not placed under their creation path";
    else
      s.note = gnu ? "GNU libgomp has no OMPT: OpenMP states and user-model stacks are unavailable"
                   : "the OpenMP runtime did not start omprof's OMPT tool (OMP_TOOL disabled, or "
                     "the program defines its own ompt_start_tool)";
  }
  return s;
}

void journal_runtime_status(const std::vector<unwind::Module>& modules) {
  namespace J = format::fields::JournalOmp;
  const RuntimeStatus st = runtime_status(modules);
  wire::Encoder e;
  e.str_nonempty(J::kOmpRuntime, st.runtime);
  e.boolean(J::kOmptActive, st.ompt_active);
  e.str_nonempty(J::kOmpNote, st.note);
  e.boolean(J::kExactWaits, st.ompt_active);
  e.boolean(J::kOffCpuWaits, st.off_cpu_waits);
  journal::append_entry(format::fields::JournalEntry::kOmp, e);
}

std::vector<ForkSnapshot> fork_snapshots() {
  ForkTable& t = forks();
  // Forks the threads have not added to their records yet (count_fork).
  std::unordered_map<uint64_t, uint64_t> uncounted, unflushed_wall;
  for (uint32_t i = 0; i < thread_count(); ++i)
    if (const ThreadState* ts = thread_at(i)) {
      if (ts->uncounted_fork_id) uncounted[ts->uncounted_fork_id] += ts->uncounted_forks;
      if (ts->wall_fork_id) unflushed_wall[ts->wall_fork_id] += ts->wall_unflushed_ns;
    }
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<ForkSnapshot> out;
  for (uint32_t i = 0; i < t.count.load(); ++i) {
    const ForkRecord* r = t.records[i];
    ForkSnapshot s;
    s.id = i + 1;
    s.parent_id = r->parent_id;
    s.frames = r->frames;
    s.truncated = r->truncated;
    s.codeptr = r->codeptr;
    s.task = r->task;
    s.instances = r->instances.load() + (uncounted.count(s.id) ? uncounted[s.id] : 0);
    s.wall_ns = r->wall_ns.load() + (unflushed_wall.count(s.id) ? unflushed_wall[s.id] : 0);
    uint64_t mask = r->team_size_mask.load();
    for (unsigned b = 0; b < 64; ++b)
      if (mask & (uint64_t(1) << b)) s.team_sizes.push_back(b + 1);
    out.push_back(std::move(s));
  }
  return out;
}

// Fork and task records that did not fit, and tasks whose record did not fit the task table.
uint64_t fork_records_dropped() {
  uint64_t skipped = 0;
  for (uint32_t i = 0; i < thread_count(); ++i)
    if (const ThreadState* ts = thread_at(i)) skipped += ts->task_paths_skipped;
  return forks().dropped.load() + task_origins::dropped() + skipped;
}

}  // namespace omprof::ompt

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int /*omp_version: libomp 14 passes 201611 although it implements 5.0*/,
    const char* runtime_version) {
  using namespace omprof;
  if (!runtime().active.load()) return nullptr;  // decline: this process is not profiled
  ompt::note_runtime_version(runtime_version);
  static ompt_start_tool_result_t result = {ompt::tool_initialize, ompt::tool_finalize, {0}};
  return &result;
}
