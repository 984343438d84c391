// Outstanding deferred child tasks of each OpenMP task, kept in the task's ompt_data_t word
// (omprof is the runtime's only tool, so the word is ours; OMPT callbacks keep it, the signal
// handler reads it): whether a taskwait has anything to
// wait for. A taskwait whose task has no child left to complete does not wait: its time is the
// runtime's bookkeeping (docs/semantics.md, "Work and Wait").
//
// The word: bits 0..19 the number of the task's deferred children not yet completed
// (saturating: a task with 2^20 - 1 of them counts as waiting until it is reset), bits 20..63
// the address of the parent's word shifted right by 3 (0: the task is not counted in a parent,
// e.g. an undeferred task). Children complete on any thread, so the count is changed atomically;
// the parent link is written once, before the task can have children.
#pragma once

#include <cstdint>

namespace omprof::handler::task_children {

constexpr uint64_t kCountBits = 20;
constexpr uint64_t kCountMask = (uint64_t(1) << kCountBits) - 1;

inline uint64_t load(const uint64_t* word) {
  return __atomic_load_n(word, __ATOMIC_RELAXED);
}

// The task's deferred children not yet completed (async-signal-safe: one load).
inline uint64_t outstanding(const uint64_t* word) {
  return load(word) & kCountMask;
}

inline uint64_t* parent_of(const uint64_t* word) {
  return reinterpret_cast<uint64_t*>((load(word) >> kCountBits) << 3);
}

// A deferred child was created: link it to its parent and count it there. Addresses above
// 2^47 (never user space on x86-64) or misaligned are not linked. Returns whether it linked.
inline bool created(uint64_t* parent, uint64_t* child) {
  const auto p = reinterpret_cast<uintptr_t>(parent);
  if (!parent || !child || (p & 7) || p >= (uintptr_t(1) << 47)) return false;
  uint64_t old = load(parent);
  while ((old & kCountMask) != kCountMask &&
         !__atomic_compare_exchange_n(parent, &old, old + 1, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  if ((old & kCountMask) == kCountMask) return false;  // saturated: the child is not linked
  __atomic_store_n(child, (uint64_t(p) >> 3) << kCountBits, __ATOMIC_RELAXED);
  return true;
}

// Whether the task is a deferred child counted in its parent and not yet completed.
inline bool linked(const uint64_t* word) {
  return word && parent_of(word) != nullptr;
}

// A task completed: uncount it in its parent, once (its link is cleared).
inline void completed(uint64_t* child) {
  if (!child) return;
  uint64_t* parent = parent_of(child);
  if (!parent) return;
  __atomic_and_fetch(child, kCountMask, __ATOMIC_RELAXED);
  uint64_t old = load(parent);
  while ((old & kCountMask) != 0 &&
         !__atomic_compare_exchange_n(parent, &old, old - 1, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

}  // namespace omprof::handler::task_children
