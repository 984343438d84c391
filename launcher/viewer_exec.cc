#include "launcher/viewer_exec.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "launcher/own_session.h"

namespace omprof::launcher {

namespace {

// omprof-viewer next to this executable (OMPROF_VIEWER overrides, for tests of a build tree).
std::string viewer_path() {
  if (const char* env = std::getenv("OMPROF_VIEWER")) return env;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, size_t(n)) : std::string("omprof");
  const size_t slash = exe.rfind('/');
  return (slash == std::string::npos ? std::string(".") : exe.substr(0, slash)) + "/omprof-viewer";
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& viewer_commands() {
  static const std::vector<std::pair<std::string, std::string>> commands = {
      {"report", "Print a profile's views (omprof report --help)"},
      {"export", "Write profiles in another tool's format: pprof, folded, speedscope, perfetto"},
      {"view", "Write one self-contained HTML page: flame graph, regions, threads, ranks"},
      {"diff", "Compare two runs: function and region deltas (omprof diff BASE NEW)"},
      {"scaling", "Compare runs at several thread and rank counts: efficiencies and losses"},
      {"advise", "What to fix first: findings ranked by the wall time they would save"},
      {"timeline", "The run as a time series: each thread's work and waits per interval"},
      {"top", "A live view of a running job: per thread and rank, now and so far"},
  };
  return commands;
}

bool is_viewer_command(const char* arg) {
  for (const auto& [name, help] : viewer_commands())
    if (name == arg) return true;
  return false;
}

int exec_viewer(int argc, char** argv) {
  const std::string path = viewer_path();
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  const auto exec = [&] {
    execv(path.c_str(), args.data());
    std::fprintf(stderr, "omprof: cannot run the viewer '%s': %s\n", path.c_str(),
                 std::strerror(errno));
    return 2;
  };
  // A live view reads beside ranks that may keep every CPU busy: from a session of its own, it
  // gets a session's share of the CPUs, not one process's among the ranks (own_session.h).
  if (argc > 1 && std::strcmp(argv[1], "top") == 0) return run_in_own_session(exec);
  return exec();
}

int recover_journals(const std::vector<JournalOf>& journals, pid_t child, int wait_status,
                     uint64_t end_unix_ns) {
  // A process that wrote its profile removed its journal: usually nothing is left to do, and
  // the viewer is not started (all journals are passed on otherwise: their order tells endings).
  bool any_left = false;
  for (const JournalOf& j : journals) any_left |= access(j.path.c_str(), F_OK) == 0;
  if (!any_left) return 0;
  std::vector<std::string> args = {"recover",
                                   "--child",
                                   std::to_string(child),
                                   "--status",
                                   std::to_string(wait_status),
                                   "--end-ns",
                                   std::to_string(end_unix_ns)};
  for (const JournalOf& j : journals) args.push_back(std::to_string(j.pid) + ":" + j.path);
  return run_viewer(args, "no profile recovered: ") == 0 ? 1 : 0;
}

int run_viewer(const std::vector<std::string>& args, const char* failure_prefix, std::string* out) {
  const std::string path = viewer_path();
  std::vector<std::string> all = {"omprof"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  int pipe_fds[2] = {-1, -1};
  if (out && pipe2(pipe_fds, O_CLOEXEC) != 0) return 2;
  const pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    if (out) dup2(pipe_fds[1], STDOUT_FILENO);
    execv(path.c_str(), argv.data());
    std::fprintf(stderr, "omprof: %scannot run the viewer '%s': %s\n", failure_prefix, path.c_str(),
                 std::strerror(errno));
    _exit(2);
  }
  if (out) {
    close(pipe_fds[1]);
    char buf[4096];
    ssize_t n = 0;
    while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) out->append(buf, size_t(n));
    close(pipe_fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace omprof::launcher
