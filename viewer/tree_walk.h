#pragma once
// The walk that prints a call tree: depth-first, heaviest child first (ties by name, so the
// order never depends on the input's), children lighter than a threshold left out with
// everything below them. An explicit stack, not recursion: stacks may be deeper than the C stack
// allows.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "viewer/name_trie.h"

namespace omprof::viewer {

// Node 0 is the root and is not visited. weight(i) orders siblings, keep(i) prunes;
// visit(node, parent, depth) is called in print order.
template <typename Weight, typename Keep, typename Visit>
void walk_heaviest_first(const NameTrie& trie, Weight weight, Keep keep, Visit visit) {
  struct Pending {
    size_t node, parent;
    int depth;
  };
  std::vector<Pending> todo;
  std::vector<size_t> kids;
  auto push_children = [&](size_t n, int depth) {
    kids.clear();
    trie.for_each_child(n, [&](size_t c) {
      if (keep(c)) kids.push_back(c);
    });
    std::sort(kids.begin(), kids.end(), [&](size_t a, size_t b) {
      const auto wa = weight(a), wb = weight(b);
      return wa != wb ? wa > wb : trie.name(a) < trie.name(b);
    });
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
