// Interned names and the call-tree trie the viewer builds its trees with.
#include "viewer/name_trie.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "omp/name.h"

using omprof::omp::Name;
using omprof::viewer::NameTrie;

TEST(Name, SameTextIsTheSameName) {
  const std::string built = std::string("so") + "lve";
  const Name a("solve"), b(built), c("main");
  EXPECT_EQ(a.identity(), b.identity());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a, std::string("solve"));
  EXPECT_EQ(a, "solve");
  EXPECT_EQ(a.str(), "solve");
  EXPECT_TRUE(Name().empty());
  EXPECT_EQ(Name(""), Name());
  // Ordered by text, not by where the strings live.
  EXPECT_TRUE(c < a);
  EXPECT_FALSE(a < c);
  EXPECT_FALSE(a < b);
  EXPECT_EQ(fmt::format("<{}>", a), "<solve>");
  EXPECT_EQ("f: " + a, "f: solve");
}

TEST(NameTrie, OneNodePerPathInTheOrderChildrenCame) {
  NameTrie t;
  const size_t main = t.child(0, "main");
  const size_t solve = t.child(main, "solve");
  const size_t io = t.child(main, "io");
  EXPECT_EQ(t.child(0, "main"), main);
  EXPECT_EQ(t.child(main, "solve"), solve);
  // The same name under another parent is another node.
  const size_t solve_in_io = t.child(io, "solve");
  EXPECT_NE(solve_in_io, solve);
  EXPECT_EQ(t.parent(solve_in_io), io);
  EXPECT_EQ(t.name(solve_in_io), "solve");
  std::vector<std::string> kids;
  t.for_each_child(main, [&](size_t c) { kids.push_back(t.name(c)); });
  EXPECT_EQ(kids, (std::vector<std::string>{"solve", "io"}));
  EXPECT_EQ(t.size(), 5u);
}

TEST(NameTrie, StaysRightAsItGrows) {
  // Enough nodes to grow the table several times; every path found again after.
  NameTrie t;
  std::map<std::pair<size_t, int>, size_t> made;
  size_t parent = 0;
  for (int i = 0; i < 20000; ++i) {
    const size_t id = t.child(parent, "f" + std::to_string(i % 97));
    made[{parent, i % 97}] = id;
    parent = i % 5 == 4 ? 0 : id;
  }
  for (const auto& [key, id] : made) {
    EXPECT_EQ(t.child(key.first, "f" + std::to_string(key.second)), id);
    EXPECT_EQ(t.parent(id), key.first);
  }
  EXPECT_EQ(t.size(), made.size() + 1);
}
