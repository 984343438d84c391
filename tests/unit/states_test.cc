#include "omp/states.h"

#include <gtest/gtest.h>

namespace omprof::omp {
namespace {

TEST(States, WorkAndWaitClassification) {
  for (uint32_t s : {0x0u, 0x1u, 0x2u, 0x1000u}) EXPECT_FALSE(is_wait(s)) << s;
  for (uint32_t s :
       {0x10u, 0x11u, 0x13u, 0x14u, 0x20u, 0x41u, 0x42u, 0x44u, 0x100u, 0x101u, 0x1001u})
    EXPECT_TRUE(is_wait(s)) << s;
  EXPECT_STREQ(describe_state(0x41).pseudo_frame, "<omp:lock-wait>");
  EXPECT_STREQ(describe_state(0x42).pseudo_frame, "<omp:lock-wait>");
  EXPECT_STREQ(describe_state(0x13).pseudo_frame, "<omp:region-end-barrier>");
  EXPECT_STREQ(describe_state(0x10).pseudo_frame, "<omp:barrier>");
  EXPECT_STREQ(describe_state(0x1001).pseudo_frame, "<omp:idle>");
  EXPECT_EQ(describe_state(0x1).pseudo_frame, nullptr);
  EXPECT_TRUE(is_idle(0x100));
  EXPECT_TRUE(is_idle(0x1001));
}

}  // namespace
}  // namespace omprof::omp
