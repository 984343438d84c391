#include "viewer/rank_tree.h"

#include <algorithm>
#include <unordered_map>

#include "omp/states.h"
#include "viewer/report.h"
#include "viewer/tree_walk.h"

namespace omprof::viewer {

void RankFlat::add_rank(int rank, const Model& m) {
  ++ranks_;
  all_ += double(m.total_weight_ns);
  for (const auto& [name, f] : flat_rows(m)) {
    Row& r = rows_[f.name];
    const double self = double(f.self);
    if (r.ranks == 0) {
      r.name = f.name;
      r.file = f.file;
    }
    if (r.ranks == 0 || self < r.self_min) {
      r.self_min = self;
      r.min_rank = rank;
    }
    if (r.ranks == 0 || self > r.self_max) {
      r.self_max = self;
      r.max_rank = rank;
    }
    ++r.ranks;
    r.self += self;
    r.total += double(f.total);
    r.work += double(f.work);
    r.wait += double(f.wait);
  }
}

Table RankFlat::table(size_t top, Format format, SortKey sort) const {
  std::vector<const Row*> sorted;
  for (const auto& [name, r] : rows_) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [sort](const Row* a, const Row* b) {
    return same_weight(*a, *b, sort) ? a->name < b->name : heavier(*a, *b, sort);
  });
  if (top && sorted.size() > top) sorted.resize(top);
  Table t({"ranks", "self_sum_s", "self%", "self_min_s", "min_rank", "self_avg_s", "self_max_s",
           "max_rank", "total_sum_s", "work_sum_s", "wait_sum_s", "<file", "<function"});
  if (format == Format::kText)
    t = Table({"ranks", "self_min_s", "self_avg_s", "self_max_s", "@max", "self%", "total_s",
               "wait%", "<function (merged over ranks)"});
  for (const Row* r : sorted) {
    const double avg = r->ranks ? r->self / double(r->ranks) : 0;
    if (format == Format::kText) {
      std::string name = r->name.str();
      if (name.size() > 72) name = name.substr(0, 34) + "..." + name.substr(name.size() - 35);
      t.row({std::to_string(r->ranks) + "/" + std::to_string(ranks_), seconds(r->self_min),
             seconds(avg), seconds(r->self_max), std::to_string(r->max_rank),
             percent(r->self, all_), seconds(r->total), percent(r->wait, r->work + r->wait), name});
    } else {
      t.row({std::to_string(r->ranks), seconds(r->self), percent(r->self, all_),
             seconds(r->self_min), std::to_string(r->min_rank), seconds(avg), seconds(r->self_max),
             std::to_string(r->max_rank), seconds(r->total), seconds(r->work), seconds(r->wait),
             r->file, r->name});
    }
  }
  return t;
}

void RankTree::add_rank(int rank, const Model& m) {
  ++ranks_;
  // This rank's inclusive time per merged node (Node::rank_incl), then folded into
  // min/avg/max over the nodes it reached.
  std::vector<size_t> reached;
  auto visit = [&](size_t id, const StackTotal& s) {
    if (id >= nodes_.size()) nodes_.resize(id + 1);
    Node& n = nodes_[id];
    if (n.rank_seen != ranks_) {
      n.rank_seen = ranks_;
      n.rank_incl = 0;
      reached.push_back(id);
    }
    n.rank_incl += double(s.ns());
    n.work += double(s.work_ns);
    n.wait += double(s.wait_ns);
  };
  for (const StackTotal& s : stack_totals(m)) {
    size_t cur = 0;
    visit(0, s);
    for (size_t i = s.stack.size(); i-- > 0;) {
      cur = trie_.child(cur, s.stack[i].name);
      visit(cur, s);
    }
    nodes_[cur].self += double(s.ns());
  }
  for (size_t id : reached) {
    Node& n = nodes_[id];
    const double ns = n.rank_incl;
    if (n.ranks == 0 || ns < n.min) {
      n.min = ns;
      n.min_rank = rank;
    }
    if (n.ranks == 0 || ns > n.max) {
      n.max = ns;
      n.max_rank = rank;
    }
    n.sum += ns;
    ++n.ranks;
  }
}

Table RankTree::table(double min_percent, Format format) const {
  const double all = nodes_[0].sum;
  Table t({"node_id", "parent_id", "depth", "ranks", "incl_sum_s", "incl%", "incl_min_s",
           "min_rank", "incl_avg_s", "incl_max_s", "max_rank", "self_sum_s", "work_sum_s",
           "wait_sum_s", "<name"});
  if (format == Format::kText)
    t = Table({"ranks", "incl_min_s", "incl_avg_s", "incl_max_s", "@max", "incl%", "wait%",
               "<call tree (merged over ranks)"});
  auto weight = [&](size_t n) { return nodes_[n].sum; };
  auto keep = [&](size_t n) { return 100.0 * nodes_[n].sum >= min_percent * all; };
  walk_heaviest_first(trie_, weight, keep, [&](size_t node, size_t parent, int depth) {
    const Node& c = nodes_[node];
    const std::string& name = trie_.name(node).str();
    const double avg = c.ranks ? c.sum / double(c.ranks) : 0;
    if (format == Format::kText) {
      std::string label = std::string(size_t(2 * std::min(depth, 20)), ' ') + name;
      if (label.size() > 64) label = label.substr(0, 61) + "...";
      t.row({std::to_string(c.ranks) + "/" + std::to_string(ranks_), seconds(c.min), seconds(avg),
             seconds(c.max), std::to_string(c.max_rank), percent(c.sum, all),
             percent(c.wait, c.work + c.wait), label});
    } else {
      t.row({std::to_string(node), std::to_string(parent), std::to_string(depth),
             std::to_string(c.ranks), seconds(c.sum), percent(c.sum, all), seconds(c.min),
             std::to_string(c.min_rank), seconds(avg), seconds(c.max), std::to_string(c.max_rank),
             seconds(c.self), seconds(c.work), seconds(c.wait), name});
    }
  });
  return t;
}

}  // namespace omprof::viewer
