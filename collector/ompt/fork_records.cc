#include "collector/ompt/fork_records.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "collector/handler/parallel_value.h"
#include "collector/journal_writer.h"
#include "collector/ompt/task_origins.h"
#include "collector/region_context.h"
#include "collector/thread_registry.h"
#include "proto/fields.h"

namespace omprof::ompt {

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

uint64_t intern_fork(const uint64_t* frames, uint32_t depth, bool truncated, uint64_t parent,
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
