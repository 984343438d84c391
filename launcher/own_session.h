// Running a reader in a session of its own. Linux schedules sessions first, then processes in
// them (kernel.sched_autogroup_enabled, on by Debian's kernels): `omprof top` started from the
// shell that started a job whose ranks keep every CPU busy is one process among all the ranks,
// and took 9 s a snapshot of 64 ranks on 2 CPUs where it takes 0.2 s in a session of its own.
#pragma once

#include <functional>

namespace omprof::launcher {

// Runs `work` in a child process that is the leader of a new session and returns its exit
// status, when autogroup scheduling is on and this process is not a session leader already;
// else runs it here. The parent only waits: a signal that would end it (Ctrl-C goes to the
// terminal's foreground group, which the child left) is passed on to the child, and the child
// ends if the parent dies. The child keeps the parent's standard output and error.
int run_in_own_session(const std::function<int()>& work);

}  // namespace omprof::launcher
