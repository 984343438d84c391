#include "viewer/launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "collector/task_clock.h"
#include "viewer/gomp_check.h"
#include "viewer/preload_check.h"

namespace omprof::viewer {

namespace {

constexpr const char* kLibomp = "/usr/lib/llvm-14/lib/libomp.so.5";
volatile sig_atomic_t g_child = 0;

void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

std::string dir_of(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// Resolves PROGRAM like execvp does; on failure returns "" with errno-style reason and status.
std::string resolve_program(const std::string& name, std::string& reason, int& status) {
  auto check = [&](const std::string& path) -> int {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (access(path.c_str(), X_OK) != 0) return errno;
    return 0;
  };
  int err = ENOENT;
  if (name.find('/') != std::string::npos) {
    err = check(name);
    if (err == 0) return name;
  } else {
    const char* path_env = std::getenv("PATH");
    std::stringstream ss(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    bool saw_eacces = false;
    while (std::getline(ss, dir, ':')) {
      std::string cand = (dir.empty() ? "." : dir) + "/" + name;
      int e = check(cand);
      if (e == 0) return cand;
      if (e == EACCES || e == EISDIR) saw_eacces = true;
    }
    err = saw_eacces ? EACCES : ENOENT;
  }
  reason = std::strerror(err);
  status = (err == ENOENT || err == ENOTDIR) ? 127 : 126;
  return "";
}

std::string find_collector(const std::string& self_path) {
  if (const char* env = std::getenv("OMPROF_LIBRARY")) return env;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, size_t(n)) : self_path;
  std::string bin = dir_of(exe);
  for (const std::string& cand : {bin + "/../lib/libomprof.so", bin + "/libomprof.so"})
    if (access(cand.c_str(), R_OK) == 0) return cand;
  return "";
}

std::string prepend(const char* var, const std::string& value, char sep) {
  const char* old = std::getenv(var);
  return (old && *old) ? value + sep + old : value;
}

// Whether this process may open a perf_event task-clock on itself (perf_event_paranoid,
// seccomp and containers can forbid it).
bool task_clock_available(std::string& why) {
  const int fd = open_task_clock(0, 1000000);
  if (fd < 0) {
    why = std::string("perf_event_open: ") + std::strerror(errno) +
          (errno == EACCES || errno == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
    return false;
  }
  close(fd);
  return true;
}

// mkdir -p: creates `path` and its missing parents.
bool make_directories(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string parent = path.substr(0, slash);
    if (mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}

// Whether `path` is an ELF file (not a script run through an interpreter).
bool is_elf(const std::string& path) {
  char magic[4] = {};
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool elf = read(fd, magic, 4) == 4 && std::memcmp(magic,
                                                          "\x7f"
                                                          "ELF",
                                                          4) == 0;
  close(fd);
  return elf;
}

// A variable's value before omprof changed it: "=VALUE", or "" when it was unset.
std::string original_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string("=") + v : std::string();
}

}  // namespace

int run_program(const RunOptions& opt, const std::string& self_path) {
  if (opt.command.empty()) {
    std::fprintf(
        stderr,
        "omprof: run: no program given (usage: omprof run [options] -- PROGRAM [ARGS...])\n");
    return 2;
  }
  const std::string& name = opt.command[0];
  std::string reason;
  int fail_status = 127;
  std::string program = resolve_program(name, reason, fail_status);
  if (program.empty()) {
    std::fprintf(stderr, "omprof: cannot execute '%s': %s\n", name.c_str(), reason.c_str());
    return fail_status;
  }
  // The output directory must exist (it is created if missing) and be writable.
  struct stat st;
  if (stat(opt.output_dir.c_str(), &st) != 0 && !make_directories(opt.output_dir)) {
    std::fprintf(stderr, "omprof: cannot create output directory '%s': %s\n",
                 opt.output_dir.c_str(), std::strerror(errno));
    return 2;
  }
  if (stat(opt.output_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "omprof: output location '%s' is not a directory\n",
                 opt.output_dir.c_str());
    return 2;
  }
  if (access(opt.output_dir.c_str(), W_OK | X_OK) != 0) {
    std::fprintf(stderr, "omprof: cannot write to output directory '%s': %s\n",
                 opt.output_dir.c_str(), std::strerror(errno));
    return 2;
  }
  // Absolute, so that a program that changes its working directory still writes here.
  char absolute[PATH_MAX];
  const std::string output_dir =
      realpath(opt.output_dir.c_str(), absolute) ? std::string(absolute) : opt.output_dir;
  // The task clock is the most accurate (docs/semantics.md, Clocks): the default wherever
  // perf_event_open is permitted, with a one-line notice when omprof falls back to cpu.
  std::string clock = opt.clock;
  if (clock.empty() || clock == "task") {
    std::string why;
    if (task_clock_available(why)) {
      clock = "task";
    } else if (clock == "task") {
      std::fprintf(stderr, "omprof: --clock task is not available here: %s\n", why.c_str());
      return 2;
    } else {
      std::fprintf(stderr,
                   "omprof: sampling with --clock cpu (kernel ticks): the task clock is "
                   "not available here: %s\n",
                   why.c_str());
      clock = "cpu";
    }
  }
  const std::string collector = find_collector(self_path);
  if (collector.empty()) {
    std::fprintf(
        stderr,
        "omprof: cannot find libomprof.so next to the omprof executable (set OMPROF_LIBRARY)\n");
    return 2;
  }

  // Private scratch: the launcher's manifest and, for libgomp programs, the libomp stand-in.
  const char* tmp = std::getenv("TMPDIR");
  std::string scratch = std::string(tmp && *tmp ? tmp : "/tmp") + "/omprof.XXXXXX";
  if (!mkdtemp(scratch.data())) {
    std::fprintf(stderr, "omprof: cannot create a temporary directory: %s\n", std::strerror(errno));
    return 2;
  }
  const std::string manifest = scratch + "/manifest";
  { std::ofstream(manifest).flush(); }

  std::string library_path;
  GompCheck gomp = check_libgomp(program, kLibomp);
  if (gomp.needs_libgomp) {
    if (opt.omp_runtime == "native") {
      std::fprintf(
          stderr,
          "omprof: warning: --omp-runtime=native: '%s' runs on GNU libgomp, which has no OMPT; "
          "OpenMP states and user-model stacks are unavailable\n",
          name.c_str());
    } else if (!gomp.missing_versions.empty()) {
      std::fprintf(
          stderr,
          "omprof: warning: '%s' needs %s, which LLVM libomp 14 lacks; it runs on GNU libgomp "
          "and OpenMP states and user-model stacks are unavailable\n",
          name.c_str(), gomp.missing_versions.front().c_str());
    } else if (access(kLibomp, R_OK) == 0) {
      const std::string shim = scratch + "/libgomp.so.1";
      if (symlink(kLibomp, shim.c_str()) == 0) {
        library_path = scratch;
        std::fprintf(stderr,
                     "omprof: running '%s' on LLVM libomp instead of GNU libgomp, for OMPT "
                     "(--omp-runtime=native to keep libgomp)\n",
                     name.c_str());
      }
    }
  }

  // The child reports a failed exec through this close-on-exec pipe, so that omprof can say so
  // and exit 126/127 like a shell instead of describing a run that never happened.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "omprof: pipe failed: %s\n", std::strerror(errno));
    return 2;
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "omprof: fork failed: %s\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    const std::string preload_before = original_value("LD_PRELOAD");
    const std::string library_path_before = original_value("LD_LIBRARY_PATH");
    setenv("LD_PRELOAD", prepend("LD_PRELOAD", collector, ':').c_str(), 1);
    if (!library_path.empty())
      setenv("LD_LIBRARY_PATH", prepend("LD_LIBRARY_PATH", library_path, ':').c_str(), 1);
    setenv("OMPROF_OUTPUT", output_dir.c_str(), 1);
    setenv("OMPROF_RATE", std::to_string(opt.rate_hz).c_str(), 1);
    setenv("OMPROF_CLOCK", clock.c_str(), 1);
    setenv("OMPROF_SIGNAL", opt.signal.c_str(), 1);
    setenv("OMPROF_MAX_DEPTH", std::to_string(opt.max_depth).c_str(), 1);
    setenv("OMPROF_MAX_CONTEXTS", std::to_string(opt.max_contexts).c_str(), 1);
    setenv("OMPROF_MANIFEST", manifest.c_str(), 1);
    setenv("OMPROF_ROOT_PID", std::to_string(getpid()).c_str(), 1);
    if (opt.children) {
      setenv("OMPROF_CHILDREN", "1", 1);
    } else if (is_elf(program)) {
      // The collector puts these back when it starts in the program, so that the processes
      // the program starts run exactly as without omprof. (A script keeps them: the binary it
      // exec's is the one to profile.)
      setenv("OMPROF_RESTORE_LD_PRELOAD", preload_before.c_str(), 1);
      setenv("OMPROF_RESTORE_LD_LIBRARY_PATH", library_path_before.c_str(), 1);
    }
    if (opt.symbolize) setenv("OMPROF_SYMBOLIZE", "1", 1);
    std::vector<char*> argv;
    for (const auto& a : opt.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    int err = errno;
    (void)!write(exec_pipe[1], &err, sizeof err);
    _exit(err == ENOENT ? 127 : 126);
  }
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  if (got == ssize_t(sizeof exec_errno)) {
    waitpid(pid, nullptr, 0);
    std::fprintf(stderr, "omprof: cannot execute '%s': %s\n", name.c_str(),
                 std::strerror(exec_errno));
    unlink(manifest.c_str());
    if (!library_path.empty()) unlink((scratch + "/libgomp.so.1").c_str());
    rmdir(scratch.c_str());
    return exec_errno == ENOENT ? 127 : 126;
  }

  // Like a shell: the terminal's SIGINT/SIGQUIT reach the program itself; signals sent to
  // omprof alone (a scheduler's SIGTERM) are passed on.
  g_child = pid;
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  for (int sig : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) signal(sig, forward_signal);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  std::ifstream in(manifest);
  std::string line;
  int profiles = 0, collectors_started = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, '\t')) f.push_back(cell);
    if (f.size() == 6 && f[0] == "ok") {
      ++profiles;
      std::fprintf(stderr, "omprof: profile %s: %s samples, %s threads, %s dropped, %s truncated\n",
                   f[1].c_str(), f[2].c_str(), f[3].c_str(), f[4].c_str(), f[5].c_str());
    } else if (f.size() >= 2 && f[0] == "error") {
      ++profiles;
      std::fprintf(stderr, "omprof: no profile: %s\n", f[1].c_str());
    } else if (f.size() >= 2 && f[0] == "warning") {
      std::fprintf(stderr, "omprof: warning: %s\n", f[1].c_str());
    } else if (!f.empty() && f[0] == "start") {
      ++collectors_started;
    }
  }
  if (profiles == 0) {
    const std::string cannot_preload = why_preload_is_ignored(program);
    if (collectors_started == 0 && !cannot_preload.empty())
      std::fprintf(stderr, "omprof: no profile written: %s %s\n", program.c_str(),
                   cannot_preload.c_str());
    else if (collectors_started == 0)
      std::fprintf(stderr,
                   "omprof: no profile written: the collector never started in the program "
                   "(LD_PRELOAD removed before it ran?)\n");
    else if (WIFSIGNALED(status))
      std::fprintf(stderr, "omprof: no profile written: the program was killed by signal %d (%s)\n",
                   WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
      std::fprintf(stderr,
                   "omprof: no profile written: the program ended without running exit "
                   "handlers (through _exit or _Exit, or an exec without the collector)\n");
  }
  unlink(manifest.c_str());
  if (!library_path.empty()) unlink((scratch + "/libgomp.so.1").c_str());
  rmdir(scratch.c_str());
  return code;
}

}  // namespace omprof::viewer
