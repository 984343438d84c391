// The process-wide catalogue of region names and of context nodes. A node is one region under
// one parent node (context-sensitive accounting: "assemble" under "solve" and under "setup" are
// two nodes). Node 0 is the implicit root. Threads look nodes up through their own caches and
// only take the registry's lock when they meet a new name or context.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace omprof::regions {

struct NodeInfo {
  uint32_t parent = 0;
  int32_t region = 0;  // name id, 0 for the root
};

// Told of each name and node as it is created (under the registry's lock): the collector
// records them in its journal.
struct RegistryObserver {
  void (*new_name)(int32_t id, const std::string& name) = nullptr;
  void (*new_node)(uint32_t id, NodeInfo node) = nullptr;
};

class Registry {
 public:
  Registry();
  void set_observer(RegistryObserver o) {
    std::lock_guard<std::mutex> lock(mu_);
    observer_ = o;
  }
  // Returns the id of a validated name, creating it (ids start at 1).
  int32_t intern(const std::string& name);
  // Whether `id` names a region. Lock-free (the begin/end-by-id path).
  bool valid_id(int32_t id) const {
    return id >= 1 && uint32_t(id) <= name_count_.load(std::memory_order_acquire);
  }
  std::string name(int32_t id) const;
  // The node of `region` under `parent`, created on first use.
  uint32_t child(uint32_t parent, int32_t region);
  NodeInfo node(uint32_t id) const;
  size_t node_count() const;
  size_t name_count() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> names_;  // index = id - 1
  std::atomic<uint32_t> name_count_{0};
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent << 32 | region) -> node
  std::vector<NodeInfo> nodes_;                      // index = node id
  RegistryObserver observer_;
};

}  // namespace omprof::regions
