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
  h = mix(h, ctx.task_origin);
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

size_t SampleTable::bytes_needed(uint32_t capacity, uint32_t frame_capacity) {
  return size_t(journal::table_layout(capacity, frame_capacity).bytes);
}

void SampleTable::init(void* memory, uint32_t capacity, uint32_t frame_capacity) {
  const journal::TableLayout l = journal::table_layout(capacity, frame_capacity);
  char* base = static_cast<char*>(memory);
  head_ = reinterpret_cast<journal::TableHeader*>(base);
  entries_ = reinterpret_cast<SampleEntry*>(base + l.entries);
  order_ = reinterpret_cast<uint32_t*>(base + l.order);
  frames_ = reinterpret_cast<uint64_t*>(base + l.frames);
  *head_ = journal::TableHeader{capacity, frame_capacity, 0, 0, 0, 0};
  for (RecentSite& r : recent_) r = RecentSite{};
}

void SampleTable::clear() {
  for (uint32_t i = 0; i < head_->capacity; ++i) entries_[i] = SampleEntry{};
  head_->used = head_->frames_used = 0;
  head_->dropped_samples = head_->dropped_weight_ns = 0;
  for (RecentSite& r : recent_) r = RecentSite{};
}

bool SampleTable::add(const uint64_t* frames, uint32_t depth, uint16_t flags,
                      const SampleContext& ctx, uint64_t count, uint64_t weight_ns, uint64_t cpu_ns,
                      uint64_t idle_blame_ns, uint64_t off_cpu_seen_ns, const uint64_t* counters,
                      uint32_t* slot) {
  if (!head_) return false;  // the state's page was lost (thread_states_lost)
  return add_hashed(hash_sample(frames, depth, ctx), frames, depth, flags, ctx, count, weight_ns,
                    cpu_ns, idle_blame_ns, off_cpu_seen_ns, counters, slot);
}

// Probes from the hash's slot for the entry (or a free slot for it); `used_slot`, when given,
// receives the slot it ended at.
bool SampleTable::add_hashed(uint64_t h, const uint64_t* frames, uint32_t depth, uint16_t flags,
                             const SampleContext& ctx, uint64_t count, uint64_t weight_ns,
                             uint64_t cpu_ns, uint64_t idle_blame_ns, uint64_t off_cpu_seen_ns,
                             const uint64_t* counters, uint32_t* used_slot) {
  // Read once: the table's memory may read as zero at any moment once another process truncated
  // the journal holding it (journal_writer.cc).
  journal::TableHeader* const head = head_;
  SampleEntry* const entries = entries_;
  uint64_t* const pool = frames_;
  uint32_t* const order = order_;
  if (!head || !entries || !pool || !order) return false;
  journal::TableHeader& t = *head;
  const uint32_t capacity = t.capacity;
  const uint32_t mask = capacity - 1;
  // Keep the load factor at or below 3/4 so probes stay short.
  for (uint32_t probe = 0, i = uint32_t(h) & mask; probe < capacity; ++probe, i = (i + 1) & mask) {
    SampleEntry& e = entries[i];
    if (e.hash == 0) {
      if (t.used + 1 > capacity - capacity / 4 || t.frames_used + depth > t.frame_capacity) break;
      std::memcpy(pool + t.frames_used, frames, depth * sizeof(uint64_t));
      e.frame_offset = t.frames_used;
      e.depth = static_cast<uint16_t>(depth);
      e.flags = flags;
      e.ctx = ctx;
      e.count = count;
      e.weight_ns = weight_ns;
      e.cpu_ns = cpu_ns;
      e.idle_blame_ns = idle_blame_ns;
      e.off_cpu_seen_ns = off_cpu_seen_ns;
      for (size_t c = 0; c < journal::kMaxCounters; ++c) e.counters[c] = counters ? counters[c] : 0;
      e.hash = h;  // last: the slot is complete before it becomes visible
      t.frames_used += depth;
      order[t.used] = i;
      ++t.used;  // a reader of the journal takes order[0, used)
      if (used_slot) *used_slot = i;
      return true;
    }
    if (e.hash == h && e.depth == depth && e.flags == flags && e.ctx == ctx &&
        same_frames(pool + e.frame_offset, frames, depth)) {
      e.count += count;
      e.weight_ns += weight_ns;
      e.cpu_ns += cpu_ns;
      e.idle_blame_ns += idle_blame_ns;
      e.off_cpu_seen_ns += off_cpu_seen_ns;
      if (counters)
        for (size_t c = 0; c < journal::kMaxCounters; ++c) e.counters[c] += counters[c];
      if (used_slot) *used_slot = i;
      return true;
    }
  }
  t.dropped_samples += count;
  t.dropped_weight_ns += weight_ns;
  return false;
}

void SampleTable::add_off_cpu_seen(uint32_t slot, uint64_t ns) {
  const journal::TableHeader* const head = head_;  // read once (add_hashed)
  SampleEntry* const entries = entries_;
  if (head && entries && slot < head->capacity && entries[slot].hash != 0)
    entries[slot].off_cpu_seen_ns += ns;
}

bool SampleTable::add_site(uint64_t site, const SampleContext& ctx, uint64_t count,
                           uint64_t weight_ns, uint64_t cpu_ns, uint64_t idle_blame_ns) {
  if (!head_) return false;  // the state's page was lost (thread_states_lost)
  const uint32_t depth = site ? 1 : 0;
  RecentSite& r =
      recent_[(ctx.omp_state ^ (site >> 2) ^ (ctx.fork_id * 7) ^ ctx.region_node) % kRecentSites];
  SampleEntry* const entries = entries_;  // read once (add_hashed)
  if (r.depth == depth && r.site == site && r.ctx == ctx && entries) {
    SampleEntry& e = entries[r.slot];
    e.count += count;
    e.weight_ns += weight_ns;
    e.cpu_ns += cpu_ns;
    e.idle_blame_ns += idle_blame_ns;
    return true;
  }
  const uint64_t frames[1] = {site};
  uint32_t slot = 0;
  if (!add_hashed(hash_sample(frames, depth, ctx), frames, depth, 0, ctx, count, weight_ns, cpu_ns,
                  idle_blame_ns, 0, nullptr, &slot))
    return false;
  r.site = site;
  r.ctx = ctx;
  r.slot = slot;
  r.depth = uint16_t(depth);
  return true;
}

}  // namespace omprof::handler
