// In the signal handler (add): async-signal-safe.
// Per-thread aggregation of samples by distinct (stack, context), in memory allocated before the
// thread's timer is armed. Only the owning thread's signal handler writes to its table, so no
// locks are needed; memory is bounded by the capacities, and samples that do not fit are counted
// as dropped with their weight, never silently lost.
#pragma once

#include <cstddef>
#include <cstdint>

#include "proto/journal.h"

namespace omprof::handler {

// The entry and context layouts are the journal's (proto/journal.h): tables live in the journal
// file, so that what was sampled survives the process.
using journal::kStackTruncated;
using journal::kStackUnwindFailed;
using journal::SampleContext;
using journal::SampleEntry;

class SampleTable {
 public:
  // Backing memory is provided by the caller (mmap'ed, zero-filled; journal::table_layout), and
  // holds the table's counters too. capacity must be a power of two. Returns the bytes needed for
  // the given capacities.
  static size_t bytes_needed(uint32_t capacity, uint32_t frame_capacity);
  void init(void* memory, uint32_t capacity, uint32_t frame_capacity);

  // Async-signal-safe. Adds one sample of `weight_ns` (representing `count` timer expirations).
  // Returns false (and counts its `count` and weight as dropped) when the table or the frame
  // pool is full.
  // `idle_blame_ns`: the OpenMP workers' idle time it stands for (idle_workers.h);
  // `off_cpu_seen_ns`: the thread's time off the CPU it saw (off_cpu_trail.h); `counters`:
  // journal::kMaxCounters counter deltas to add to the entry (null: none).
  // `slot`, when given, receives the entry's slot (for the timeline's leads).
  bool add(const uint64_t* frames, uint32_t depth, uint16_t flags, const SampleContext& ctx,
           uint64_t count, uint64_t weight_ns, uint64_t cpu_ns = 0, uint64_t idle_blame_ns = 0,
           uint64_t off_cpu_seen_ns = 0, const uint64_t* counters = nullptr,
           uint32_t* slot = nullptr);
  // The same for an entry whose stack is one address or none (`site`, 0: none): exact waits,
  // recorded by OMPT callbacks on the profiled program's critical path at every fork, join and
  // barrier. A few recent keys remember their slot, so that a wait recorded again in the same
  // context costs a comparison instead of a hash and a probe. Not for the signal handler (a
  // handler interrupting an update of the cache could pair a key with another's slot).
  bool add_site(uint64_t site, const SampleContext& ctx, uint64_t count, uint64_t weight_ns,
                uint64_t cpu_ns = 0, uint64_t idle_blame_ns = 0);

  // Async-signal-safe. Adds time off the CPU seen to the entry in `slot` (an earlier add's).
  void add_off_cpu_seen(uint32_t slot, uint64_t ns);

  // Reading, after sampling stopped: the used entries in insertion order (reading only these
  // keeps the untouched pages of a large table out of memory at exit).
  uint32_t capacity() const { return head_->capacity; }
  const SampleEntry& entry(uint32_t i) const { return entries_[i]; }
  const SampleEntry& used_entry(uint32_t k) const { return entries_[order_[k]]; }
  uint32_t used_slot(uint32_t k) const { return order_[k]; }  // the k-th entry's slot
  const uint64_t* frames_of(const SampleEntry& e) const { return frames_ + e.frame_offset; }
  uint32_t used() const { return head_->used; }
  uint64_t dropped_samples() const { return head_->dropped_samples; }
  uint64_t dropped_weight_ns() const { return head_->dropped_weight_ns; }
  // Forget everything (fork child, tests).
  void clear();

 private:
  journal::TableHeader* head_ = nullptr;
  SampleEntry* entries_ = nullptr;
  uint64_t* frames_ = nullptr;
  uint32_t* order_ = nullptr;  // slot of the k-th entry added
  // add_site's recent keys and their slots. An unused entry has depth 2, which no site has, so
  // it never matches.
  struct RecentSite {
    uint64_t site = 0;
    SampleContext ctx;
    uint32_t slot = 0;
    uint16_t depth = 2;
  };
  static constexpr uint32_t kRecentSites = 8;
  RecentSite recent_[kRecentSites];
  bool add_hashed(uint64_t h, const uint64_t* frames, uint32_t depth, uint16_t flags,
                  const SampleContext& ctx, uint64_t count, uint64_t weight_ns, uint64_t cpu_ns,
                  uint64_t idle_blame_ns, uint64_t off_cpu_seen_ns, const uint64_t* counters,
                  uint32_t* used_slot);
};

uint64_t hash_sample(const uint64_t* frames, uint32_t depth, const SampleContext& ctx);

}  // namespace omprof::handler
