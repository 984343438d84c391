// A reader run in a session of its own (launcher/own_session.h): where the kernel schedules by
// session, the work runs as a session leader, and its exit status and ending signal are the
// command's.
#include "launcher/own_session.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>

namespace omprof::launcher {
namespace {

bool autogroup_on() {
  std::ifstream in("/proc/sys/kernel/sched_autogroup_enabled");
  int on = 0;
  return in >> on && on == 1;
}

TEST(OwnSession, TheWorkLeadsASessionWhereTheKernelSchedulesBySession) {
  const bool leader_here = getsid(0) == getpid();
  const int status = run_in_own_session([] { return getsid(0) == getpid() ? 7 : 3; });
  EXPECT_EQ(status, autogroup_on() || leader_here ? 7 : 3);
  EXPECT_EQ(getsid(0) == getpid(), leader_here);  // this process stays where it was
}

TEST(OwnSession, TheWorksExitStatusIsReturned) {
  EXPECT_EQ(run_in_own_session([] { return 0; }), 0);
  EXPECT_EQ(run_in_own_session([] { return 2; }), 2);
}

TEST(OwnSession, AWorkEndedByASignalEndsTheCommandTheSameWay) {
  if (!autogroup_on()) GTEST_SKIP() << "the work runs in this process here";
  EXPECT_EXIT(run_in_own_session([] { return raise(SIGUSR1); }), testing::KilledBySignal(SIGUSR1),
              "");
}

}  // namespace
}  // namespace omprof::launcher
