// In the signal handler (add): async-signal-safe.
// Per-thread aggregation of samples by distinct (stack, context), in memory allocated before the
// thread's timer is armed. Only the owning thread's signal handler writes to its table, so no
// locks are needed; memory is bounded by the capacities, and samples that do not fit are counted
// as dropped with their weight, never silently lost.
#pragma once

#include <cstddef>
#include <cstdint>

namespace omprof::handler {

// What a sample knows besides its stack. Compared as a whole when aggregating.
struct SampleContext {
  uint32_t omp_state = 0;
  uint32_t omp_thread_num = 0;
  uint64_t fork_id = 0;
  uint64_t region_node = 0;
  bool operator==(const SampleContext& o) const {
    return omp_state == o.omp_state && omp_thread_num == o.omp_thread_num && fork_id == o.fork_id &&
           region_node == o.region_node;
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
  uint64_t count;
  uint64_t weight_ns;
};

class SampleTable {
 public:
  // Backing memory is provided by the caller (mmap'ed, zero-filled). capacity must be a power of
  // two. Returns the bytes needed for the given capacities.
  static size_t bytes_needed(uint32_t capacity, uint32_t frame_capacity);
  void init(void* memory, uint32_t capacity, uint32_t frame_capacity);

  // Async-signal-safe. Adds one sample of `weight_ns` (representing `count` timer expirations).
  // Returns false (and counts its `count` and weight as dropped) when the table or the frame
  // pool is full.
  bool add(const uint64_t* frames, uint32_t depth, uint16_t flags, const SampleContext& ctx,
           uint64_t count, uint64_t weight_ns);

  // Reading, after sampling stopped: the used entries in insertion order (reading only these
  // keeps the untouched pages of a large table out of memory at exit).
  uint32_t capacity() const { return capacity_; }
  const SampleEntry& entry(uint32_t i) const { return entries_[i]; }
  const SampleEntry& used_entry(uint32_t k) const { return entries_[order_[k]]; }
  const uint64_t* frames_of(const SampleEntry& e) const { return frames_ + e.frame_offset; }
  uint32_t used() const { return used_; }
  uint64_t dropped_samples() const { return dropped_samples_; }
  uint64_t dropped_weight_ns() const { return dropped_weight_ns_; }
  // Forget everything (fork child, tests).
  void clear();

 private:
  SampleEntry* entries_ = nullptr;
  uint64_t* frames_ = nullptr;
  uint32_t* order_ = nullptr;  // slot of the k-th entry added
  uint32_t capacity_ = 0;
  uint32_t frame_capacity_ = 0;
  uint32_t used_ = 0;
  uint32_t frames_used_ = 0;
  uint64_t dropped_samples_ = 0;
  uint64_t dropped_weight_ns_ = 0;
};

uint64_t hash_sample(const uint64_t* frames, uint32_t depth, const SampleContext& ctx);

}  // namespace omprof::handler
