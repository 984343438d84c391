// The team's longest span at a barrier (collector/ompt/barrier_spans.h): each thread's own word
// for the first threads of the process, shared raised words beyond, a tag per barrier.
#include "collector/ompt/barrier_spans.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace omprof::ompt::barrier_spans {
namespace {

TEST(BarrierSpans, TheLongestSpanOfTheTeamWhateverTheOrder) {
  const uint64_t k = key(7, 1);
  publish(k, 0, 30'000);
  publish(k, 1, 100'000);
  publish(k, 2, 50'000);
  EXPECT_EQ(longest(k, 3, 30'000), 100'000u);
  EXPECT_EQ(longest(k, 3, 120'000), 120'000u) << "the reader's own span when it is longer";
  EXPECT_EQ(longest(k, 2, 30'000), 100'000u) << "only the process's threads are read";
  // A thread's later, shorter span at another barrier does not change this one's.
  const uint64_t next = key(7, 2);
  publish(next, 1, 2'000);
  EXPECT_EQ(longest(next, 3, 1'000), 2'000u);
  EXPECT_EQ(longest(k, 3, 0), 100'000u);
}

TEST(BarrierSpans, ShortSpansAndUnknownRegionsAreNotPublished) {
  const uint64_t k = key(8, 1);
  publish(k, 0, kMinPublishedSpanNs - 1);
  EXPECT_EQ(longest(k, 1, 10), 10u);
  EXPECT_EQ(key(0, 1), 0u);
  publish(0, 0, 1'000'000);
  EXPECT_EQ(longest(0, 1, 10), 10u);
}

TEST(BarrierSpans, ThreadsBeyondTheOwnWordsRaiseSharedOnes) {
  // Threads kOwnWords and kOwnWords + kSharedWords share a word: the longer span stays,
  // whichever publishes last.
  const uint64_t k = key(9, 3);
  publish(k, kOwnWords, 70'000);
  publish(k, kOwnWords + kSharedWords, 40'000);
  publish(k, 1, 20'000);
  EXPECT_EQ(longest(k, kOwnWords + kSharedWords + 1, 0), 70'000u);
  EXPECT_EQ(longest(k, kOwnWords, 0), 20'000u) << "shared words are read past kOwnWords";
}

TEST(BarrierSpans, ConcurrentPublishersOfOneBarrier) {
  // 24 threads (own words and shared ones) publish at once; every reader sees the longest.
  const uint64_t k = key(10, 1);
  std::vector<std::thread> team;
  for (uint32_t t = 0; t < 24; ++t)
    team.emplace_back([=] { publish(k, t, 10'000 + 1'000 * uint64_t(t)); });
  for (std::thread& t : team) t.join();
  EXPECT_EQ(longest(k, 24, 0), 33'000u);
}

}  // namespace
}  // namespace omprof::ompt::barrier_spans
