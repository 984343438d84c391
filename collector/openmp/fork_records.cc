#include "collector/openmp/fork_records.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/signal_handler.h"
#include "collector/handler/stack_capture.h"
#include "collector/journal_writer.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "proto/fields.h"

namespace omprof::openmp {

namespace {

namespace pv = handler::parallel_value;

constexpr uint32_t kMaxForkRecords = 1 << 16;
constexpr uint32_t kMaxTaskNesting = 4;  // task records under task records (folded_task_record)
std::atomic<uint32_t> g_region_instances{0};

struct ForkRecord {
  uint64_t parent_id;
  std::vector<uint64_t> frames;
  bool truncated;
  bool task;  // a task construct's creation path (on_task_create)
  uint64_t codeptr;
  // Its counts: in the journal (so that a process that dies keeps them), else `own`.
  journal::ForkCounts* counts = &own;
  journal::ForkCounts own{};
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

constexpr uint64_t kInstanceBlock = 64;

// A number for a new region instance: 1 to 2^21 - 1 (0 is "none", parallel_value.h), unique
// among the instances in flight. Each thread takes a block of numbers at a time from the
// process's counter, whose cache line a fork then touches once per block, not every time.
uint64_t new_instance(ThreadState* ts) {
  uint64_t n = 0;
  if (!ts) {
    n = g_region_instances.fetch_add(1, std::memory_order_relaxed);
  } else {
    if (ts->omp_process.next_instance == ts->omp_process.instances_end) {
      ts->omp_process.next_instance =
          g_region_instances.fetch_add(kInstanceBlock, std::memory_order_relaxed);
      ts->omp_process.instances_end = ts->omp_process.next_instance + kInstanceBlock;
    }
    n = ts->omp_process.next_instance++;
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
      rec->counts->instances.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (ForkRecord* rec = record_by_id(ts->uncounted_fork_id))
    rec->counts->instances.fetch_add(ts->uncounted_forks, std::memory_order_relaxed);
  ts->uncounted_fork_id = fork_id;
  ts->uncounted_forks = 1;
}

}  // namespace

// Recursive task creation folds: a task created at a construct (`codeptr`, a return address - 1)
// that already created one of its creating tasks shares that task's record, and tasks nest at
// most kMaxTaskNesting deep (deeper ones share their creating task's record, `parent`), so that
// records stay as many as the program's chains of distinct task constructs, not the nodes of
// its recursion (a construct in a recursive function is reached from each of the others' task
// bodies). Returns that record, or 0 when the task gets a record of its own. Depends on the
// creating record and the construct only, never on the path (records do not change once made,
// and are read without the table's lock), so a folded creation needs no unwind.
static uint64_t folded_task_record(uint64_t parent, uint64_t codeptr) {
  uint32_t nesting = 0;
  for (uint64_t id = parent; id && nesting < 256; ++nesting) {
    const ForkRecord* a = record_by_id(id);
    if (!a || !a->task) break;
    if (a->codeptr == codeptr) return id;
    id = a->parent_id;
  }
  return nesting >= kMaxTaskNesting ? parent : 0;
}

static uint64_t intern_fork(const uint64_t* frames, uint32_t depth, bool truncated, uint64_t parent,
                            const void* codeptr_ra, bool task) {
  const uint64_t codeptr = codeptr_ra ? reinterpret_cast<uintptr_t>(codeptr_ra) - 1 : 0;
  std::vector<uint64_t> key;
  key.reserve(depth + 3);
  key.push_back(parent);
  key.push_back(uint64_t(truncated) | (uint64_t(task) << 1));
  key.insert(key.end(), frames, frames + depth);

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
  if (journal::ForkCounts* in_journal = journal::fork_counts(index + 1)) rec->counts = in_journal;
  rec->parent_id = parent;
  rec->frames.assign(frames, frames + depth);
  rec->truncated = truncated;
  rec->task = task;
  rec->codeptr = codeptr;
  t.records[index] = rec;
  t.count.store(index + 1);
  const uint64_t id = index + 1;
  t.ids.emplace(std::move(key), id);
  journal_fork(id, *rec);
  return id;
}
// The record of a fork's call path (below, with the memo that finds it).
static uint64_t record_fork(const void* codeptr_ra, const void* enter_frame);

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
    if (!(rec->counts->team_size_mask.load(std::memory_order_relaxed) & size_bit))
      rec->counts->team_size_mask.fetch_or(size_bit, std::memory_order_relaxed);
  }
}

void add_fork_wall(uint64_t fork_id, uint64_t wall_ns) {
  if (ForkRecord* rec = record_by_id(fork_id)) rec->counts->wall_ns.fetch_add(wall_ns);
}

void add_fork_counters(uint64_t fork_id, const uint64_t* counts, uint32_t n) {
  if (ForkRecord* rec = record_by_id(fork_id))
    for (uint32_t i = 0; i < n && i < journal::kMaxCounters; ++i)
      if (counts[i]) rec->counts->counters[i].fetch_add(counts[i], std::memory_order_relaxed);
}

bool is_outermost_fork(uint64_t fork_id) {
  const ForkRecord* rec = record_by_id(fork_id);
  return rec && rec->parent_id == 0;
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
    s.instances = r->counts->instances.load() + (uncounted.count(s.id) ? uncounted[s.id] : 0);
    s.wall_ns = r->counts->wall_ns.load() + (unflushed_wall.count(s.id) ? unflushed_wall[s.id] : 0);
    uint64_t mask = r->counts->team_size_mask.load();
    for (unsigned b = 0; b < 64; ++b)
      if (mask & (uint64_t(1) << b)) s.team_sizes.push_back(b + 1);
    for (const auto& c : r->counts->counters) s.counters.push_back(c.load());
    out.push_back(std::move(s));
  }
  return out;
}

// Fork and task records that did not fit, and task paths not recorded.
uint64_t fork_records_dropped() {
  uint64_t skipped = 0;
  for (uint32_t i = 0; i < thread_count(); ++i)
    if (const ThreadState* ts = thread_at(i)) skipped += ts->omp_process.task_paths_skipped;
  return forks().dropped.load() + skipped;
}

// ---- How a fork or a task creation finds its call path cheaply: the encountering thread's
// stack, unwound once per call path and remembered (a per-thread memo), then checked in place.

namespace {

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

// Interns the encountering thread's call path (with its enclosing context `parent`) as a fork
// record: a parallel construct's whole stack, or (`task`) a task construct's path from the
// runtime's call of the creating task's code (`cut_frame`, its OMPT exit frame) on.
// What a path is memoized by: the construct, the frame it is anchored at (a fork's frame, or a
// task's cut) and its context.
struct PathKey {
  const void* codeptr_ra = nullptr;
  uint64_t codeptr = 0;
  uint64_t parent = 0;
  bool task = false;
  uint64_t cut_frame = 0;
  uint64_t frame = 0;      // the anchor; 0 (no cut): no memo, a fast unwind each time
  uint64_t key_frame = 0;  // the frame address for a fork, 0 for a task
  uint64_t context = 0;    // parent, with the task bit
  bool matches(const MemoEntry& e) const {
    return e.id && e.codeptr == codeptr && e.key_frame == key_frame && e.parent == context;
  }
};

// The memo's way for `k` whose path is still on the stack, else null with `victim` set to the
// way to refill: an empty one, else the least recently used (several paths with one key, an
// untied task's creating function called from each part of its task's code, keep a way each).
MemoEntry* memo_lookup(ForkScratch* s, const PathKey& k, MemoEntry*& victim) {
  MemoEntry* set =
      &s->memo[(((k.codeptr * 0x9e3779b97f4a7c15ULL) ^ k.key_frame ^ (k.context << 17)) >> 7) %
               kMemoSets * kMemoWays];
  for (size_t w = 0; w < kMemoWays; ++w) {
    MemoEntry& e = set[w];
    if (k.matches(e) && e.verifiable && memo_matches(e, k.frame, k.task)) return &e;
  }
  victim = &set[0];
  for (size_t w = 1; w < kMemoWays && victim->id != 0; ++w)
    if (set[w].id == 0 || set[w].last_use < victim->last_use) victim = &set[w];
  return nullptr;
}

// First fork from here (or the path changed): one slow unwind that also finds the slots, kept
// in way `m` for the next time.
uint64_t unwind_into_memo(ForkScratch* s, const PathKey& k, MemoEntry& m, bool same_key) {
  if (k.task) ++s->task_unwinds;
  handler::SlotCaptureResult r = handler::capture_current_stack_slots(
      s->frames, s->slots, runtime().config.max_depth, 1, k.cut_frame);
  if (ThreadState* ts = current_thread())
    handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
  const uint64_t id = intern_fork(s->frames, r.depth, r.truncated, k.parent, k.codeptr_ra, k.task);
  if (!id) return 0;
  m.misses = same_key ? m.misses + 1 : 0;
  m.last_use = ++s->memo_clock;
  m.codeptr = k.codeptr;
  m.key_frame = k.key_frame;
  m.anchor = k.frame;
  m.parent = k.context;
  m.id = id;
  m.verifiable = r.slots_valid && !r.truncated;
  m.slots.assign(s->slots, s->slots + r.depth);
  m.returns.resize(r.depth);
  for (uint32_t i = 0; i < r.depth; ++i) m.returns[i] = s->frames[i] + 1;
  if (!k.task) s->last_fork = &m;
  return id;
}

// No frame address, or a key whose check keeps failing: a fast unwind every time (a task's
// path must be cut: the slow unwind, which knows where each frame is).
uint64_t unwind_without_memo(ForkScratch* s, const PathKey& k) {
  const uint32_t max_depth = runtime().config.max_depth;
  ThreadState* ts = current_thread();
  if (k.task && k.cut_frame) {
    ++s->task_unwinds;
    handler::SlotCaptureResult r =
        handler::capture_current_stack_slots(s->frames, s->slots, max_depth, 1, k.cut_frame);
    if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
    return intern_fork(s->frames, r.depth, r.truncated, k.parent, k.codeptr_ra, k.task);
  }
  handler::CaptureResult r = handler::capture_current_stack(s->raw, s->frames, max_depth, 1);
  if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
  return intern_fork(s->frames, r.depth, r.truncated, k.parent, k.codeptr_ra, k.task);
}

uint64_t record_path(const void* codeptr_ra, const void* enter_frame, uint64_t parent, bool task,
                     uint64_t cut_frame) {
  ForkScratch* s = fork_scratch();
  PathKey k;
  k.codeptr_ra = codeptr_ra;
  k.codeptr = reinterpret_cast<uint64_t>(codeptr_ra);
  // A task whose record folds into one of its creators' (recursion) needs no path.
  if (task && k.codeptr)
    if (const uint64_t folded = folded_task_record(parent, k.codeptr - 1)) return folded;
  k.parent = parent;
  k.task = task;
  k.cut_frame = cut_frame;
  k.frame = task ? cut_frame : reinterpret_cast<uint64_t>(enter_frame);
  k.key_frame = task ? 0 : k.frame;
  k.context = parent | (uint64_t(task) << 63);
  // A loop around a parallel construct forks from the same way each time.
  if (MemoEntry* last = s->last_fork; !task && last && k.matches(*last) && last->verifiable &&
                                      memo_matches(*last, k.frame, false)) {
    last->last_use = ++s->memo_clock;
    return last->id;
  }
  MemoEntry* victim = nullptr;
  if (MemoEntry* hit = memo_lookup(s, k, victim)) {
    hit->last_use = ++s->memo_clock;
    if (!task) s->last_fork = hit;
    return hit->id;
  }
  const bool same_key = k.matches(*victim);
  if (k.frame && (!same_key || task || victim->misses < kMaxMemoMisses))
    return unwind_into_memo(s, k, *victim, same_key);
  return unwind_without_memo(s, k);
}

}  // namespace

uint64_t enclosing_fork_id() {
  return handler::parallel_value::fork_id(handler::innermost_parallel_value());
}

static uint64_t record_fork(const void* codeptr_ra, const void* enter_frame) {
  return record_path(codeptr_ra, enter_frame, enclosing_fork_id(), false, 0);
}

uint32_t record_task_creation(const void* codeptr_ra, const void* enter_frame, uint64_t parent,
                              uint64_t cut_frame) {
  if (!task_paths()) return 0;
  ForkScratch* scratch = fork_scratch();
  if (scratch->task_paths_off) {
    // Per thread: a shared counter would cost a cache miss.
    if (ThreadState* ts = current_thread()) ++ts->omp_process.task_paths_skipped;
    return 0;
  }
  const uint64_t id = record_path(codeptr_ra, enter_frame, parent, true, cut_frame);
  if (++scratch->task_paths >= kTaskGuardAfter &&
      scratch->task_unwinds * kTaskGuardRatio > scratch->task_paths)
    scratch->task_paths_off = true;
  return uint32_t(id);
}

}  // namespace omprof::openmp
