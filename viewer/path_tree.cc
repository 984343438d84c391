#include "viewer/path_tree.h"

#include <algorithm>

#include "viewer/tree_walk.h"

namespace omprof::viewer {

void PathTree::add(const std::vector<const std::string*>& path, uint64_t work_ns,
                   uint64_t wait_ns) {
  size_t cur = 0;
  const uint64_t weight_ns = work_ns + wait_ns;
  auto count = [&](Node& n) {
    n.incl += weight_ns;
    n.work += work_ns;
    n.wait += wait_ns;
  };
  count(nodes_[0]);
  for (const std::string* name : path) {
    auto it = nodes_[cur].children.find(*name);
    size_t next;
    if (it == nodes_[cur].children.end()) {
      next = nodes_.size();
      nodes_[cur].children.emplace(*name, next);
      nodes_.push_back(Node{*name, 0, 0, 0, 0, {}});
    } else {
      next = it->second;
    }
    cur = next;
    count(nodes_[cur]);
  }
  nodes_[cur].self += weight_ns;
}

Table PathTree::table(double min_percent, uint64_t total_ns, Format format,
                      const std::string& name_column, const std::string& root_label) const {
  const double all = double(total_ns);
  Table t(
      {"node_id", "parent_id", "depth", "incl_s", "incl%", "self_s", "work_s", "wait_s", "<name"});
  if (format == Format::kText) t = Table({"incl_s", "incl%", "self_s", "wait%", "<" + name_column});
  // CSV rows carry their node's id and its parent's (0: the root): a path per row would grow
  // with the square of the depth.
  auto weight = [&](size_t n) { return nodes_[n].incl; };
  auto keep = [&](size_t n) { return 100.0 * double(nodes_[n].incl) >= min_percent * all; };
  walk_heaviest_first(nodes_, weight, keep, [&](size_t node, size_t parent, int depth) {
    const Node& c = nodes_[node];
    const std::string& name = depth == 0 && !root_label.empty() ? root_label : c.name;
    if (format == Format::kText) {
      std::string label = std::string(size_t(2 * std::min(depth, 20)), ' ') + name;
      t.row(
          {seconds(c.incl), percent(c.incl, all), seconds(c.self), percent(c.wait, c.incl), label});
    } else {
      t.row({std::to_string(node), std::to_string(parent), std::to_string(depth), seconds(c.incl),
             percent(c.incl, all), seconds(c.self), seconds(c.work), seconds(c.wait), name});
    }
  });
  return t;
}

}  // namespace omprof::viewer
