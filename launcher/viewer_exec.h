// The launcher's link to the viewer: the offline commands run in omprof-viewer, a separate
// executable next to omprof, so that `omprof run` never loads protobuf, libdw or the views.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace omprof::launcher {

// The viewer's commands, with their one-line help for `omprof --help`.
const std::vector<std::pair<std::string, std::string>>& viewer_commands();
bool is_viewer_command(const char* arg);

// Replaces this process with omprof-viewer and the same arguments; returns 2 (with a message)
// only if it cannot.
int exec_viewer(int argc, char** argv);

// After the run: turns the journals of processes that wrote no profile into profiles (the
// viewer's hidden `recover` command, which prints one line each). Returns how many were written
// (at least 1, or 0).
struct JournalOf {
  pid_t pid;
  std::string path;
};
int recover_journals(const std::vector<JournalOf>& journals, pid_t child, int wait_status,
                     uint64_t end_unix_ns);

// Runs omprof-viewer with `args` (a hidden command) and waits: its exit status (2 if it could
// not run, with one line starting with `failure_prefix`). With `out`, its standard output is
// read into it instead of going to the terminal.
int run_viewer(const std::vector<std::string>& args, const char* failure_prefix,
               std::string* out = nullptr);

}  // namespace omprof::launcher
