#include "regions/registry.h"

namespace omprof::regions {

Registry::Registry() {
  nodes_.push_back(NodeInfo{});
}

int32_t Registry::intern(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  names_.push_back(name);
  const int32_t id = int32_t(names_.size());
  ids_.emplace(name, id);
  name_count_.store(uint32_t(id), std::memory_order_release);
  if (observer_.new_name) observer_.new_name(id, name);
  return id;
}

std::string Registry::name(int32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return (id >= 1 && size_t(id) <= names_.size()) ? names_[size_t(id) - 1] : std::string();
}

uint32_t Registry::child(uint32_t parent, int32_t region) {
  const uint64_t key = (uint64_t(parent) << 32) | uint32_t(region);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = children_.find(key);
  if (it != children_.end()) return it->second;
  const uint32_t id = uint32_t(nodes_.size());
  nodes_.push_back(NodeInfo{parent, region});
  children_.emplace(key, id);
  if (observer_.new_node) observer_.new_node(id, NodeInfo{parent, region});
  return id;
}

NodeInfo Registry::node(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return id < nodes_.size() ? nodes_[id] : NodeInfo{};
}

size_t Registry::node_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nodes_.size();
}

size_t Registry::name_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return names_.size();
}

}  // namespace omprof::regions
