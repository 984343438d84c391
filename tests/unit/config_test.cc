#include "collector/config.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

namespace omprof {
namespace {

using options::parse_signal;
using options::usable_profiling_signal;

class ConfigEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"OMPROF_RATE", "OMPROF_CLOCK", "OMPROF_SIGNAL", "OMPROF_MAX_DEPTH", "OMPROF_MAX_CONTEXTS",
          "OMPROF_OUTPUT", "OMPROF_MAX_THREADS", "OMPROF_CLOCK_FALLBACK"})
      unsetenv(v);
  }
};

TEST(ParseSignal, NamesAndNumbers) {
  EXPECT_EQ(parse_signal("SIGPROF"), SIGPROF);
  EXPECT_EQ(parse_signal("PROF"), SIGPROF);
  EXPECT_EQ(parse_signal("27"), 27);
  EXPECT_EQ(parse_signal("SIGRTMIN+3"), SIGRTMIN + 3);
  EXPECT_EQ(parse_signal("SIGRTMIN"), SIGRTMIN);
  EXPECT_EQ(parse_signal("SIGNOPE"), -1);
  EXPECT_EQ(parse_signal(""), -1);
  EXPECT_FALSE(usable_profiling_signal(SIGKILL));
  EXPECT_FALSE(usable_profiling_signal(SIGSEGV));
  EXPECT_TRUE(usable_profiling_signal(SIGPROF));
}

// The task clock's fallback limit: off unless `omprof run` (or the user) sets it; a number.
TEST_F(ConfigEnv, ClockFallbackLimit) {
  Config c;
  std::string err;
  ASSERT_TRUE(parse_config(c, err)) << err;
  EXPECT_EQ(c.clock_fallback_per_cpu_s, 0u);
  setenv("OMPROF_CLOCK_FALLBACK", "4000", 1);
  ASSERT_TRUE(parse_config(c, err)) << err;
  EXPECT_EQ(c.clock_fallback_per_cpu_s, 4000u);
  for (const char* bad : {"fast", "12x", "-"}) {
    setenv("OMPROF_CLOCK_FALLBACK", bad, 1);
    EXPECT_FALSE(parse_config(c, err)) << bad;
    EXPECT_NE(err.find("OMPROF_CLOCK_FALLBACK"), std::string::npos) << err;
  }
  unsetenv("OMPROF_CLOCK_FALLBACK");
}

TEST_F(ConfigEnv, Defaults) {
  Config c;
  std::string err;
  ASSERT_TRUE(parse_config(c, err));
  EXPECT_EQ(c.rate_hz, 200u);
  EXPECT_EQ(c.period_ns, 5000000u);
  EXPECT_EQ(c.clock, ClockKind::kCpu);
  EXPECT_EQ(c.signo, SIGPROF);
  EXPECT_EQ(c.max_depth, 256u);
}

TEST_F(ConfigEnv, ValuesAndErrors) {
  setenv("OMPROF_RATE", "1000", 1);
  setenv("OMPROF_CLOCK", "wall", 1);
  setenv("OMPROF_MAX_CONTEXTS", "1000", 1);
  Config c;
  std::string err;
  ASSERT_TRUE(parse_config(c, err)) << err;
  EXPECT_EQ(c.period_ns, 1000000u);
  EXPECT_EQ(c.clock, ClockKind::kWall);
  EXPECT_EQ(c.max_contexts, 1024u);  // rounded up to a power of two
  for (const char* bad : {"0", "10001", "-5", "abc", "12x"}) {
    setenv("OMPROF_RATE", bad, 1);
    Config d;
    EXPECT_FALSE(parse_config(d, err)) << bad;
    EXPECT_NE(err.find("OMPROF_RATE"), std::string::npos);
  }
}

}  // namespace
}  // namespace omprof
