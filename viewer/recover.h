// `omprof run`, after the program ended: the journals its processes left (a process that ended
// without writing its profile: a signal, _exit, SIGKILL) become profiles, marked recovered and
// with the ending the launcher saw (docs/format.md, "The journal").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace omprof::viewer {

struct JournalOf {
  pid_t pid;
  std::string path;
};

// `child` and `wait_status`: the process omprof started and how it ended. A journal of another
// process (a child of the program, with --children) has an ending that was not observed; one of
// an image that later exec'ed, with the same pid, ended by exec. Prints one line per profile;
// returns how many were written.
int recover_journals(const std::vector<JournalOf>& journals, pid_t child, int wait_status,
                     uint64_t end_unix_ns);

}  // namespace omprof::viewer
