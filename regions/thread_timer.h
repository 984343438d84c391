// One thread's region stack and statistics, with strict stack nesting and the fTimer mismatch
// contract. Only its own thread calls the mutating functions; time comes in as arguments, so
// the semantics are testable with exact, injected clocks.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "regions/registry.h"
#include "regions/status.h"

namespace omprof::regions {

// Counter events a thread's regions may count (`omprof run --counters --region-counters`), as
// many as its counter group holds.
constexpr size_t kCounterSlots = 4;

struct Timestamp {
  int64_t wall_ns = 0;
  int64_t cpu_ns = 0;
};

struct NodeStats {
  int64_t calls = 0;
  int64_t wall_ns = 0;  // inclusive, closed activations
  int64_t cpu_ns = 0;
  int64_t counters[kCounterSlots] = {};  // inclusive, closed activations (set_counter_source)
};

// One node as seen by one thread at a snapshot.
struct NodeSnapshot {
  uint32_t node = 0;
  int64_t calls = 0;
  int64_t wall_ns = 0;  // inclusive, open activations counted up to the snapshot
  int64_t cpu_ns = 0;
  int64_t self_wall_ns = 0;
  int64_t self_cpu_ns = 0;
  int64_t counters[kCounterSlots] = {};  // inclusive, like cpu_ns
  int64_t self_counters[kCounterSlots] = {};
  bool active = false;
};

class ThreadTimer {
 public:
  ThreadTimer(Registry& registry, uint32_t thread_index);

  Status begin(int32_t region, Timestamp now, uint64_t* token = nullptr);
  // End `region`. On a mismatch: kStrict returns kMismatch and changes nothing; kWarn and
  // kRepair repair (*repaired = true): with one timestamp, the regions opened inside the
  // target are stopped, the target is stopped, and they are restarted, innermost last, under
  // the target's parent (as continuations: their call counts do not grow). A region that is
  // not open at all is a kMismatch in every mode.
  Status end(int32_t region, Timestamp now, MismatchMode mode, bool* repaired = nullptr);
  // End exactly the activation `token` names; kMismatch if it is not the innermost one.
  Status end_token(uint64_t token, Timestamp now);

  // Zero all statistics; kActive (and nothing changes) while a region is open.
  Status reset();

  // The node this thread is in: its innermost open region, else the inherited base.
  uint32_t current_node() const { return current_.load(std::memory_order_relaxed); }
  // The same, for a reader that keeps the address (the collector's signal handler).
  const std::atomic<uint32_t>& current_node_variable() const { return current_; }
  // Context inherited from another thread (OpenMP: the master's region at the fork); regions
  // this thread opens with an empty stack nest under it.
  void set_base(uint32_t node);
  // Keep the statistics of nodes below `count` in `storage` (zero-filled, `count` entries, alive
  // as long as this timer): the collector's journal, so that a process that dies keeps them.
  // Before the first begin.
  void use_storage(NodeStats* storage, uint32_t count) {
    fixed_ = storage;
    fixed_count_ = storage ? count : 0;
  }
  // Told of every activation that closes (its node, its start and end wall times), as it
  // closes: the collector's timeline events (collector/timeline_events.h).
  using CloseObserver = void (*)(void* data, uint32_t node, int64_t start_wall_ns,
                                 int64_t end_wall_ns);
  void set_close_observer(CloseObserver observer, void* data) {
    observer_ = observer;
    observer_data_ = data;
  }
  // The thread's counter readings (kCounterSlots of them), which the caller refreshes before
  // every begin, end and snapshot: regions then also count events, inclusive and self, as they
  // do CPU time. Null (the default): no counts, nothing more on the begin/end path than a test.
  void set_counter_source(const int64_t* counts) { counts_ = counts; }
  size_t depth() const { return stack_.size(); }
  uint32_t thread_index() const { return thread_index_; }

  // Per-node statistics with self times (computed on this thread), open regions included up to
  // `now`; their CPU time only when `now.cpu_ns` is this thread's clock (`cpu_is_mine`).
  std::vector<NodeSnapshot> snapshot(Timestamp now, bool cpu_is_mine = true) const;

 private:
  struct Activation {
    uint32_t node;
    int32_t region;
    uint64_t token;
    Timestamp start;
  };
  uint32_t node_for(uint32_t parent, int32_t region);
  NodeStats& stats(uint32_t node);
  // A node's statistics, zero for a node never seen.
  NodeStats stats_of(uint32_t node) const;
  uint32_t node_bound() const;  // every node seen is below it
  void push(uint32_t node, int32_t region, uint64_t token, Timestamp now);
  void close(size_t depth, Timestamp now);  // the activation stack_[depth]
  void update_current();

  Registry& registry_;
  uint32_t thread_index_;
  std::vector<Activation> stack_;
  std::vector<NodeStats> stats_;  // index = node id (those below fixed_count_ live in fixed_)
  NodeStats* fixed_ = nullptr;
  uint32_t fixed_count_ = 0;
  std::vector<std::pair<uint64_t, uint32_t>> cache_;  // (parent, region) -> node, open addressing
  size_t cache_used_ = 0;
  uint32_t base_ = 0;
  uint64_t next_token_ = 1;
  std::atomic<uint32_t> current_{0};
  CloseObserver observer_ = nullptr;
  void* observer_data_ = nullptr;
  const int64_t* counts_ = nullptr;  // set_counter_source
  // The counts at each open activation's start, by its depth (only with counts_).
  std::vector<std::array<int64_t, kCounterSlots>> counter_starts_;
};

}  // namespace omprof::regions
