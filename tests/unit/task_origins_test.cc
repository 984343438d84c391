// The table of deferred tasks' creation records (collector/ompt/task_origins.h): what task
// switches find, under collisions, reuse of freed slots and of task addresses.
#include "collector/ompt/task_origins.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace omprof::ompt::task_origins {
namespace {

TEST(TaskOrigins, FindsWhatWasInsertedUntilErased) {
  alignas(8) static uint64_t tasks[3];
  ASSERT_TRUE(insert(&tasks[0], 7));
  ASSERT_TRUE(insert(&tasks[1], 8));
  EXPECT_EQ(find(&tasks[0]), 7u);
  EXPECT_EQ(find(&tasks[1]), 8u);
  EXPECT_EQ(find(&tasks[2]), 0u);
  erase(&tasks[0]);
  EXPECT_EQ(find(&tasks[0]), 0u);
  EXPECT_EQ(find(&tasks[1]), 8u);  // past the freed slot
  // An address reused by a new task (its predecessor's completion unseen) takes the new record.
  ASSERT_TRUE(insert(&tasks[1], 9));
  EXPECT_EQ(find(&tasks[1]), 9u);
  erase(&tasks[1]);
}

// Many live tasks at once, inserted and erased from several threads, as a team does: each
// finds its own record; freed slots are reused, so the table does not fill over time.
TEST(TaskOrigins, ConcurrentTasksKeepTheirRecords) {
  constexpr int kThreads = 4, kLive = 1000, kRounds = 20;
  std::vector<std::vector<uint64_t>> words(kThreads, std::vector<uint64_t>(kLive));
  const uint64_t dropped_before = dropped();
  std::vector<std::thread> team;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    team.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        for (int i = 0; i < kLive; ++i) insert(&words[t][i], uint32_t(t * kLive + i + 1));
        for (int i = 0; i < kLive; ++i)
          if (find(&words[t][i]) != uint32_t(t * kLive + i + 1)) ++wrong[t];
        for (int i = 0; i < kLive; ++i) erase(&words[t][i]);
      }
    });
  for (auto& th : team) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_EQ(dropped(), dropped_before);
}

}  // namespace
}  // namespace omprof::ompt::task_origins
