// Both signal-context unwinders (libunwind's cached unw_backtrace and the step loop used for a
// thread's first samples) must give the same frames, or one stack would be counted as two.
#include "collector/handler/stack_capture.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace {

using omprof::handler::capture_signal_stack;
using omprof::handler::CaptureResult;
using omprof::handler::kSignalSlack;

constexpr uint32_t kMax = 64;
struct Captured {
  CaptureResult cached, stepped;
  uint64_t cached_frames[kMax], stepped_frames[kMax];
};
Captured g_captured;
void* g_scratch[kMax + kSignalSlack];

void on_signal(int, siginfo_t*, void* ucontext) {
  g_captured.stepped =
      capture_signal_stack(ucontext, g_scratch, g_captured.stepped_frames, kMax, false);
  g_captured.cached =
      capture_signal_stack(ucontext, g_scratch, g_captured.cached_frames, kMax, true);
}

__attribute__((noinline)) void level3() {
  raise(SIGUSR2);
  asm volatile("");
}
__attribute__((noinline)) void level2() {
  level3();
  asm volatile("");
}
__attribute__((noinline)) void level1() {
  level2();
  asm volatile("");
}

bool contains_return_into(const uint64_t* frames, uint32_t depth, void (*fn)()) {
  // A caller frame lies inside its function: within a few hundred bytes of its entry here.
  const auto entry = reinterpret_cast<uint64_t>(fn);
  for (uint32_t i = 1; i < depth; ++i)
    if (frames[i] > entry && frames[i] < entry + 256) return true;
  return false;
}

void capture_from_nested_calls() {
  struct sigaction sa {
  }, old{};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR2, &sa, &old);
  level1();
  sigaction(SIGUSR2, &old, nullptr);
}

void expect_same_frames() {
  const Captured& c = g_captured;
  ASSERT_FALSE(c.stepped.unwind_failed);
  ASSERT_FALSE(c.cached.unwind_failed);
  ASSERT_EQ(c.stepped.depth, c.cached.depth);
  for (uint32_t i = 0; i < c.cached.depth; ++i)
    EXPECT_EQ(c.stepped_frames[i], c.cached_frames[i]) << "frame " << i;
  EXPECT_TRUE(contains_return_into(c.cached_frames, c.cached.depth, level1));
  EXPECT_TRUE(contains_return_into(c.cached_frames, c.cached.depth, level2));
  EXPECT_TRUE(contains_return_into(c.cached_frames, c.cached.depth, level3));
}

TEST(StackCapture, StepLoopAndTraceCacheGiveTheSameFrames) {
  omprof::handler::warm_up_process();
  capture_from_nested_calls();
  expect_same_frames();
}

TEST(StackCapture, SameFramesOnAFreshThreadWithoutWarmUp) {
  omprof::handler::warm_up_process();
  std::thread t(capture_from_nested_calls);
  t.join();
  expect_same_frames();
}

TEST(StackCapture, DeepStacksAreTruncatedTheSameWay) {
  const auto deep = [](auto& self, int n) -> void {
    if (n == 0)
      capture_from_nested_calls();
    else
      self(self, n - 1);
    asm volatile("");
  };
  deep(deep, 100);
  EXPECT_TRUE(g_captured.stepped.truncated);
  EXPECT_TRUE(g_captured.cached.truncated);
  EXPECT_EQ(g_captured.stepped.depth, kMax);
  EXPECT_EQ(g_captured.cached.depth, kMax);
  for (uint32_t i = 0; i < kMax; ++i)
    EXPECT_EQ(g_captured.stepped_frames[i], g_captured.cached_frames[i]) << "frame " << i;
}

}  // namespace
