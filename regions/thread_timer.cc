#include "regions/thread_timer.h"

#include <algorithm>
#include <limits>

namespace omprof::regions {

namespace {
constexpr uint64_t kEmpty = ~uint64_t(0);
inline uint64_t cache_key(uint32_t parent, int32_t region) {
  return (uint64_t(parent) << 32) | uint32_t(region);
}
inline size_t cache_slot(uint64_t key, size_t size) {
  return size_t((key * 0x9e3779b97f4a7c15ULL) >> 40) & (size - 1);
}
}  // namespace

ThreadTimer::ThreadTimer(Registry& registry, uint32_t thread_index)
    : registry_(registry), thread_index_(thread_index), cache_(64, {kEmpty, 0}) {
  stack_.reserve(32);
}

uint32_t ThreadTimer::node_for(uint32_t parent, int32_t region) {
  const uint64_t key = cache_key(parent, region);
  for (size_t i = cache_slot(key, cache_.size());; i = (i + 1) & (cache_.size() - 1)) {
    if (cache_[i].first == key) return cache_[i].second;
    if (cache_[i].first == kEmpty) break;
  }
  const uint32_t node = registry_.child(parent, region);
  if (2 * (cache_used_ + 1) > cache_.size()) {  // keep the table at most half full
    std::vector<std::pair<uint64_t, uint32_t>> old;
    old.swap(cache_);
    cache_.assign(old.size() * 2, {kEmpty, 0});
    for (const auto& e : old)
      if (e.first != kEmpty) {
        size_t i = cache_slot(e.first, cache_.size());
        while (cache_[i].first != kEmpty) i = (i + 1) & (cache_.size() - 1);
        cache_[i] = e;
      }
  }
  size_t i = cache_slot(key, cache_.size());
  while (cache_[i].first != kEmpty) i = (i + 1) & (cache_.size() - 1);
  cache_[i] = {key, node};
  ++cache_used_;
  return node;
}

NodeStats& ThreadTimer::stats(uint32_t node) {
  if (node < fixed_count_) return fixed_[node];
  if (node >= stats_.size()) stats_.resize(size_t(node) * 2 + 16);
  return stats_[node];
}

NodeStats ThreadTimer::stats_of(uint32_t node) const {
  if (node < fixed_count_) return fixed_[node];
  return node < stats_.size() ? stats_[node] : NodeStats{};
}

uint32_t ThreadTimer::node_bound() const {
  return std::max(fixed_count_, uint32_t(stats_.size()));
}

void ThreadTimer::update_current() {
  current_.store(stack_.empty() ? base_ : stack_.back().node, std::memory_order_relaxed);
}

void ThreadTimer::set_base(uint32_t node) {
  base_ = node;
  update_current();
}

Status ThreadTimer::begin(int32_t region, Timestamp now, uint64_t* token) {
  const uint32_t parent = stack_.empty() ? base_ : stack_.back().node;
  const uint32_t node = node_for(parent, region);
  NodeStats& s = stats(node);
  if (s.calls == std::numeric_limits<int64_t>::max()) return kUnknown;  // never wraps
  ++s.calls;
  const uint64_t t = next_token_++;
  push(node, region, t, now);
  if (token) *token = (uint64_t(thread_index_) << 40) | t;
  update_current();
  return kSuccess;
}

void ThreadTimer::push(uint32_t node, int32_t region, uint64_t token, Timestamp now) {
  stack_.push_back({node, region, token, now});
  if (!counts_) return;
  if (counter_starts_.size() < stack_.size()) counter_starts_.resize(stack_.size() * 2);
  std::copy(counts_, counts_ + kCounterSlots, counter_starts_[stack_.size() - 1].begin());
}

void ThreadTimer::close(size_t depth, Timestamp now) {
  const Activation& a = stack_[depth];
  NodeStats& s = stats(a.node);
  s.wall_ns += now.wall_ns - a.start.wall_ns;
  s.cpu_ns += now.cpu_ns - a.start.cpu_ns;
  if (counts_ && depth < counter_starts_.size())
    for (size_t c = 0; c < kCounterSlots; ++c)
      s.counters[c] += counts_[c] - counter_starts_[depth][c];
  if (observer_) observer_(observer_data_, a.node, a.start.wall_ns, now.wall_ns);
}

Status ThreadTimer::end(int32_t region, Timestamp now, MismatchMode mode, bool* repaired) {
  if (repaired) *repaired = false;
  if (stack_.empty()) return kMismatch;
  if (stack_.back().region == region) {
    close(stack_.size() - 1, now);
    stack_.pop_back();
    update_current();
    return kSuccess;
  }
  size_t target = stack_.size();
  for (size_t i = stack_.size(); i-- > 0;)
    if (stack_[i].region == region) {
      target = i;
      break;
    }
  if (target == stack_.size() || mode == MismatchMode::kStrict) return kMismatch;

  // Repair, all at the one timestamp `now`.
  std::vector<Activation> unwound(stack_.begin() + long(target) + 1, stack_.end());
  for (size_t i = stack_.size(); i-- > target;) close(i, now);
  stack_.resize(target);
  for (const Activation& a : unwound) {  // outermost first: restarted in reverse unwind order
    const uint32_t parent = stack_.empty() ? base_ : stack_.back().node;
    const uint32_t node = node_for(parent, a.region);
    stats(node);  // a continuation: the node exists, its call count does not grow
    push(node, a.region, next_token_++, now);
  }
  update_current();
  if (repaired) *repaired = true;
  return kSuccess;
}

Status ThreadTimer::end_token(uint64_t token, Timestamp now) {
  if (stack_.empty() || ((uint64_t(thread_index_) << 40) | stack_.back().token) != token)
    return kMismatch;
  close(stack_.size() - 1, now);
  stack_.pop_back();
  update_current();
  return kSuccess;
}

Status ThreadTimer::reset() {
  if (!stack_.empty()) return kActive;
  for (NodeStats& s : stats_) s = NodeStats{};
  for (uint32_t n = 0; n < fixed_count_; ++n) fixed_[n] = NodeStats{};
  return kSuccess;
}

std::vector<NodeSnapshot> ThreadTimer::snapshot(Timestamp now, bool cpu_is_mine) const {
  std::vector<NodeSnapshot> out;
  const uint32_t bound = node_bound();
  std::vector<int64_t> index(bound, -1);
  auto entry = [&](uint32_t node) -> NodeSnapshot& {
    if (index[node] < 0) {
      index[node] = int64_t(out.size());
      const NodeStats st = stats_of(node);
      NodeSnapshot s;
      s.node = node;
      s.calls = st.calls;
      s.wall_ns = st.wall_ns;
      s.cpu_ns = st.cpu_ns;
      std::copy(std::begin(st.counters), std::end(st.counters), std::begin(s.counters));
      out.push_back(s);
    }
    return out[size_t(index[node])];
  };
  for (uint32_t n = 1; n < bound; ++n) {
    const NodeStats st = stats_of(n);
    if (st.calls || st.wall_ns || st.cpu_ns) entry(n);
  }
  for (size_t depth = 0; depth < stack_.size(); ++depth) {  // open activations: time so far
    const Activation& a = stack_[depth];
    NodeSnapshot& s = entry(a.node);
    s.wall_ns += now.wall_ns - a.start.wall_ns;
    if (cpu_is_mine) s.cpu_ns += now.cpu_ns - a.start.cpu_ns;
    if (cpu_is_mine && counts_ && depth < counter_starts_.size())
      for (size_t c = 0; c < kCounterSlots; ++c)
        s.counters[c] += counts_[c] - counter_starts_[depth][c];
    s.active = true;
  }
  // Self time on this thread: inclusive minus the inclusive time of this thread's children.
  for (NodeSnapshot& s : out) {
    s.self_wall_ns = s.wall_ns;
    s.self_cpu_ns = s.cpu_ns;
    std::copy(std::begin(s.counters), std::end(s.counters), std::begin(s.self_counters));
  }
  for (const NodeSnapshot& s : out) {
    const uint32_t parent = registry_.node(s.node).parent;
    if (parent != 0 && parent < index.size() && index[parent] >= 0) {
      NodeSnapshot& p = out[size_t(index[parent])];
      p.self_wall_ns -= s.wall_ns;
      p.self_cpu_ns -= s.cpu_ns;
      for (size_t c = 0; c < kCounterSlots; ++c) p.self_counters[c] -= s.counters[c];
    }
  }
  return out;
}

}  // namespace omprof::regions
