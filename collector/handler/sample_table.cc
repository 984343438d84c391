#include "collector/handler/sample_table.h"

#include <cstring>

namespace omprof::handler {

namespace {
// Stacks are short and usually equal when hashes are: a plain loop beats a memcmp call.
inline bool same_frames(const uint64_t* a, const uint64_t* b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}
}  // namespace

uint64_t hash_sample(const uint64_t* frames, uint32_t depth, const SampleContext& ctx) {
  uint64_t h = 0xcbf29ce484222325ULL ^ depth;
  for (uint32_t i = 0; i < depth; ++i) h = mix(h, frames[i]);
  h = mix(h, (uint64_t(ctx.omp_state) << 32) | ctx.omp_thread_num);
  h = mix(h, ctx.fork_id);
  h = mix(h, ctx.region_node);
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

size_t SampleTable::bytes_needed(uint32_t capacity, uint32_t frame_capacity) {
  return size_t(capacity) * sizeof(SampleEntry) + size_t(frame_capacity) * sizeof(uint64_t) +
         size_t(capacity) * sizeof(uint32_t);
}

void SampleTable::init(void* memory, uint32_t capacity, uint32_t frame_capacity) {
  entries_ = static_cast<SampleEntry*>(memory);
  frames_ = reinterpret_cast<uint64_t*>(entries_ + capacity);
  order_ = reinterpret_cast<uint32_t*>(frames_ + frame_capacity);
  capacity_ = capacity;
  frame_capacity_ = frame_capacity;
  used_ = frames_used_ = 0;
  dropped_samples_ = dropped_weight_ns_ = 0;
}

void SampleTable::clear() {
  for (uint32_t i = 0; i < capacity_; ++i) entries_[i] = SampleEntry{};
  used_ = frames_used_ = 0;
  dropped_samples_ = dropped_weight_ns_ = 0;
}

bool SampleTable::add(const uint64_t* frames, uint32_t depth, uint16_t flags,
                      const SampleContext& ctx, uint64_t count, uint64_t weight_ns) {
  const uint64_t h = hash_sample(frames, depth, ctx);
  const uint32_t mask = capacity_ - 1;
  // Keep the load factor at or below 3/4 so probes stay short.
  for (uint32_t probe = 0, i = uint32_t(h) & mask; probe < capacity_; ++probe, i = (i + 1) & mask) {
    SampleEntry& e = entries_[i];
    if (e.hash == 0) {
      if (used_ + 1 > capacity_ - capacity_ / 4 || frames_used_ + depth > frame_capacity_) break;
      std::memcpy(frames_ + frames_used_, frames, depth * sizeof(uint64_t));
      e.frame_offset = frames_used_;
      e.depth = static_cast<uint16_t>(depth);
      e.flags = flags;
      e.ctx = ctx;
      e.count = count;
      e.weight_ns = weight_ns;
      e.hash = h;  // last: the slot is complete before it becomes visible
      frames_used_ += depth;
      order_[used_] = i;
      ++used_;
      return true;
    }
    if (e.hash == h && e.depth == depth && e.flags == flags && e.ctx == ctx &&
        same_frames(frames_ + e.frame_offset, frames, depth)) {
      e.count += count;
      e.weight_ns += weight_ns;
      return true;
    }
  }
  dropped_samples_ += count;
  dropped_weight_ns_ += weight_ns;
  return false;
}

}  // namespace omprof::handler
