#include "viewer/path_tree.h"

#include <algorithm>

#include "viewer/tree_walk.h"

namespace omprof::viewer {

void PathTree::add(const std::vector<omp::Name>& path, uint64_t work_ns, uint64_t wait_ns,
                   uint64_t idle_ns) {
  const uint64_t weight_ns = work_ns + wait_ns;
  any_idle_ = any_idle_ || idle_ns > 0;
  auto count = [&](size_t n) {
    if (n >= counts_.size()) counts_.resize(n + 1);
    Counts& c = counts_[n];
    c.incl += weight_ns;
    c.work += work_ns;
    c.wait += wait_ns;
    c.idle += idle_ns;
  };
  size_t cur = 0;
  count(cur);
  for (const omp::Name& name : path) {
    cur = trie_.child(cur, name);
    count(cur);
  }
  counts_[cur].self += weight_ns;
}

Table PathTree::table(double min_percent, uint64_t total_ns, Format format,
                      const std::string& name_column, const std::string& root_label) const {
  const double all = double(total_ns);
  Table t(
      {"node_id", "parent_id", "depth", "incl_s", "incl%", "self_s", "work_s", "wait_s", "<name"});
  if (format == Format::kText) t = Table({"incl_s", "incl%", "self_s", "wait%", "<" + name_column});
  if (any_idle_) {  // before the name in text, appended in CSV
    std::vector<std::string> columns = t.columns();
    columns.insert(columns.end() - 1, "idle_s");
    t = Table(columns);
    t.last_in_csv(columns.size() - 2, 1);
  }
  // CSV rows carry their node's id and its parent's (0: the root): a path per row would grow
  // with the square of the depth.
  auto weight = [&](size_t n) { return counts_[n].incl; };
  auto keep = [&](size_t n) { return 100.0 * double(counts_[n].incl) >= min_percent * all; };
  walk_heaviest_first(trie_, weight, keep, [&](size_t node, size_t parent, int depth) {
    const Counts& c = counts_[node];
    const std::string& name =
        depth == 0 && !root_label.empty() ? root_label : trie_.name(node).str();
    std::vector<std::string> cells;
    if (format == Format::kText) {
      std::string label = std::string(size_t(2 * std::min(depth, 20)), ' ') + name;
      cells = {seconds(c.incl), percent(c.incl, all), seconds(c.self), percent(c.wait, c.incl),
               label};
    } else {
      cells = {std::to_string(node), std::to_string(parent), std::to_string(depth),
               seconds(c.incl),      percent(c.incl, all),   seconds(c.self),
               seconds(c.work),      seconds(c.wait),        name};
    }
    if (any_idle_) cells.insert(cells.end() - 1, seconds(c.idle));
    t.row(std::move(cells));
  });
  return t;
}

}  // namespace omprof::viewer
