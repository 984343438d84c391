#include <atomic>
#include <cstdlib>

#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/signal_handler.h"
#include "collector/handler/stack_capture.h"
#include "collector/ompt/fork_records.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"

// How a fork or a task creation finds its call path cheaply: the encountering thread's stack,
// unwound once per call path and remembered (a per-thread memo), then checked in place.
namespace omprof::ompt {

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
    const uint64_t id = intern_fork(s->frames, r.depth, r.truncated, parent, codeptr_ra, task);
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
    return intern_fork(s->frames, r.depth, r.truncated, parent, codeptr_ra, task);
  }
  handler::CaptureResult r = handler::capture_current_stack(s->raw, s->frames, max_depth, 1);
  if (ts) handler::take_deferred_samples(ts, s->frames, r.depth, r.truncated);
  return intern_fork(s->frames, r.depth, r.truncated, parent, codeptr_ra, task);
}

}  // namespace

uint64_t enclosing_fork_id() {
  return handler::parallel_value::fork_id(handler::innermost_parallel_value());
}

uint64_t record_fork(const void* codeptr_ra, const void* enter_frame) {
  return record_path(codeptr_ra, enter_frame, enclosing_fork_id(), false, 0);
}

// Read once (OMPROF_TASK_PATHS=0 is for cost comparisons in bench/), outside signal context.
bool task_paths() {
  static const bool on = [] {
    const char* v = std::getenv("OMPROF_TASK_PATHS");
    return !(v && *v == '0');
  }();
  return on;
}

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

}  // namespace omprof::ompt
