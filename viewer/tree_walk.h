#pragma once
// The walk that prints a call tree: depth-first, heaviest child first, children lighter than a
// threshold left out with everything below them. An explicit stack, not recursion: stacks may
// be deeper than the C stack allows.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace omprof::viewer {

// nodes[i].children maps a name to a child's index; node 0 is the root and is not visited.
// weight(i) orders siblings, keep(i) prunes; visit(node, parent, depth) is called in print order.
template <typename Nodes, typename Weight, typename Keep, typename Visit>
void walk_heaviest_first(const Nodes& nodes, Weight weight, Keep keep, Visit visit) {
  struct Pending {
    size_t node, parent;
    int depth;
  };
  std::vector<Pending> todo;
  std::vector<size_t> kids;
  auto push_children = [&](size_t n, int depth) {
    kids.clear();
    for (const auto& child : nodes[n].children)
      if (keep(child.second)) kids.push_back(child.second);
    std::sort(kids.begin(), kids.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
    for (size_t i = kids.size(); i-- > 0;) todo.push_back({kids[i], n, depth});
  };
  push_children(0, 0);
  while (!todo.empty()) {
    const Pending p = todo.back();
    todo.pop_back();
    visit(p.node, p.parent, p.depth);
    push_children(p.node, p.depth + 1);
  }
}

}  // namespace omprof::viewer
