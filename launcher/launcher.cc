#include "launcher/launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "launcher/counter_check.h"
#include "launcher/gomp_check.h"
#include "launcher/mpi_check.h"
#include "launcher/perf_refusal.h"
#include "launcher/preload_check.h"
#include "launcher/run_report.h"
#include "launcher/viewer_exec.h"
#include "proto/manifest.h"
#include "proto/options.h"

namespace omprof::launcher {

namespace {

constexpr const char* kLibomp = "/usr/lib/llvm-14/lib/libomp.so.5";
volatile sig_atomic_t g_child = 0;

void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// The program was killed by `sig`: omprof ends the same way, so that its parent (a shell, a
// batch system, mpirun) sees what it would have seen without omprof. No core of omprof itself:
// the program's core, if any, was dumped already.
void die_like_the_program(int sig) {
  std::fflush(nullptr);
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
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

// Whether this process may open a perf_event task-clock on itself, as the collector does for
// each thread (perf_event_paranoid, seccomp and containers can forbid it).
bool task_clock_available(std::string& why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  const int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    why = "perf_event_open: " + perf_refusal(errno);
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

// The output directory must exist (it is created if missing) and be writable. Returns 0 and
// its absolute path (a program that changes its working directory still writes there), or the
// exit status.
int prepare_output_dir(const std::string& dir, std::string& absolute) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 && !make_directories(dir)) {
    std::fprintf(stderr, "omprof: cannot create output directory '%s': %s\n", dir.c_str(),
                 std::strerror(errno));
    return 2;
  }
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "omprof: output location '%s' is not a directory\n", dir.c_str());
    return 2;
  }
  // A file is really created (access() says yes to root in /proc, where nothing can be).
  const std::string probe = dir + "/.omprof-probe." + std::to_string(getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "omprof: cannot write to output directory '%s': %s\n", dir.c_str(),
                 std::strerror(errno));
    return 2;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  char buf[PATH_MAX];
  absolute = realpath(dir.c_str(), buf) ? std::string(buf) : dir;
  return 0;
}

// The task clock is the accurate one (docs/semantics.md, Clocks): the default wherever
// perf_event_open is permitted, with a one-line notice when omprof falls back to cpu. Its timer
// is started and stopped at every context switch of the thread; where that costs a timer
// reprogramming (virtual machines: about 5 us a switch measured on a 2-vCPU VM), a thread that
// switches very often (OpenMP threads that sleep at every barrier, a busy machine) leaves it for
// the cpu clock by itself (collector/handler/clock_fallback.h). The cpu clock is not chosen up
// front for such programs: its samples fall on kernel ticks, which alias with a program whose
// steps last a whole number of ticks. Returns 0, or the exit status.
// `choice`: why, one line for the profile's header (Header.clock_choice).
int choose_clock(const std::string& asked, std::string& clock, std::string& choice) {
  clock = asked;
  choice = "asked for (--clock " + asked + ")";
  if (!clock.empty() && clock != "task") return 0;
  std::string why;
  if (task_clock_available(why)) {
    if (clock.empty())
      choice =
          "omprof run's default where perf_event_open is permitted (CPU time between kernel "
          "ticks; a thread that switches too often moves to the cpu clock)";
    clock = "task";
  } else if (clock == "task") {
    std::fprintf(stderr, "omprof: --clock task is not available here: %s\n", why.c_str());
    return 2;
  } else {
    std::fprintf(stderr,
                 "omprof: sampling with --clock cpu (kernel ticks: a program whose steps last "
                 "whole ticks can be misread): the task clock is not available here: %s\n",
                 why.c_str());
    clock = "cpu";
    choice = "the task clock is not available here (" + why + ")";
  }
  return 0;
}

// For a libgomp program: with --omp-runtime=libomp, a directory in `scratch` whose libgomp.so.1
// is LLVM libomp (which has OMPT), to put first on LD_LIBRARY_PATH; "" to leave the program on
// libgomp (the default: the program runs on the runtime it links), where omprof's wrappers of
// libgomp's entry points (`gomp_wrappers`, set here) give the states and user-model stacks.
std::string libomp_instead_of_libgomp(const std::string& program, const std::string& name,
                                      const std::string& omp_runtime, const std::string& scratch,
                                      const std::string& collector, std::string& gomp_wrappers) {
  GompCheck gomp = check_libgomp(program, kLibomp);
  if (!gomp.needs_libgomp) return "";
  const std::string wrappers = dir_of(collector) + "/libomprof_gomp.so";
  if (omp_runtime == "libomp") {
    if (!gomp.missing_versions.empty()) {
      std::fprintf(stderr,
                   "omprof: warning: '%s' needs %s, which LLVM libomp 14 lacks; it runs on GNU "
                   "libgomp\n",
                   name.c_str(), gomp.missing_versions.front().c_str());
    } else if (access(kLibomp, R_OK) == 0 &&
               symlink(kLibomp, (scratch + "/libgomp.so.1").c_str()) == 0) {
      std::fprintf(stderr,
                   "omprof: running '%s' on LLVM libomp instead of GNU libgomp, for OMPT (its "
                   "timings are libomp's)\n",
                   name.c_str());
      return scratch;
    } else {
      std::fprintf(stderr, "omprof: warning: %s not found; '%s' runs on GNU libgomp\n", kLibomp,
                   name.c_str());
    }
  }
  if (access(wrappers.c_str(), R_OK) == 0) {
    gomp_wrappers = wrappers;
  } else {
    std::fprintf(stderr,
                 "omprof: warning: '%s' runs on GNU libgomp, which has no OMPT, and %s is "
                 "missing: OpenMP states and user-model stacks are unavailable\n",
                 name.c_str(), wrappers.c_str());
  }
  return "";
}

// What one run needs besides the options.
struct Launch {
  std::string program;  // resolved path
  std::string collector;
  std::string output_dir;  // absolute
  std::string clock;
  std::string clock_choice;  // why (choose_clock)
  std::string manifest;
  std::string library_path;       // "" or the libomp stand-in's directory
  std::string mpi_wrappers;       // "" or libomprof_mpi.so, preloaded after the collector
  std::string gomp_wrappers;      // "" or libomprof_gomp.so, preloaded after the collector
  std::string counters;           // the checked --counters events, "" for none
  std::string counter_encodings;  // their perf_event encodings (counters::join_encodings)
};

// In the child, before exec: the collector's options (proto/options.h) and the preload.
void set_collector_environment(const RunOptions& opt, const Launch& l) {
  namespace env = options::env;
  const std::string preload_before = original_value("LD_PRELOAD");
  const std::string library_path_before = original_value("LD_LIBRARY_PATH");
  std::string preload = l.collector;
  for (const std::string* w : {&l.gomp_wrappers, &l.mpi_wrappers})
    if (!w->empty()) preload += ":" + *w;
  setenv("LD_PRELOAD", prepend("LD_PRELOAD", preload, ':').c_str(), 1);
  if (!l.library_path.empty())
    setenv("LD_LIBRARY_PATH", prepend("LD_LIBRARY_PATH", l.library_path, ':').c_str(), 1);
  setenv(env::kOutput, l.output_dir.c_str(), 1);
  setenv(options::kRate.env, std::to_string(opt.rate_hz).c_str(), 1);
  setenv(options::kClockEnv, l.clock.c_str(), 1);
  setenv(env::kClockChoice, l.clock_choice.c_str(), 1);
  // The task clock omprof chose itself: a thread that switches too often leaves it for the cpu
  // clock (a limit already in the environment stands). One asked for stays.
  if (!opt.clock.empty())
    setenv(env::kClockFallback, "0", 1);
  else if (l.clock == "task")
    setenv(env::kClockFallback, env::kClockFallbackDefault, 0);
  setenv(options::kSignalEnv, opt.signal.c_str(), 1);
  setenv(options::kMaxDepth.env, std::to_string(opt.max_depth).c_str(), 1);
  setenv(options::kInterval.env, std::to_string(opt.interval_ms).c_str(), 1);
  setenv(options::kEventMin.env, std::to_string(opt.event_min_ms).c_str(), 1);
  setenv(options::kMaxContexts.env, std::to_string(opt.max_contexts).c_str(), 1);
  setenv(env::kManifest, l.manifest.c_str(), 1);
  setenv(env::kRootPid, std::to_string(getpid()).c_str(), 1);
  if (opt.children) {
    setenv(env::kChildren, "1", 1);
  } else if (is_elf(l.program)) {
    // The collector puts these back when it starts in the program, so that the processes the
    // program starts run exactly as without omprof. (A script keeps them: the binary it exec's
    // is the one to profile.)
    setenv((std::string(env::kRestorePrefix) + "LD_PRELOAD").c_str(), preload_before.c_str(), 1);
    setenv((std::string(env::kRestorePrefix) + "LD_LIBRARY_PATH").c_str(),
           library_path_before.c_str(), 1);
  }
  if (opt.symbolize) setenv(env::kSymbolize, "1", 1);
  if (opt.mpi_cpu) setenv(env::kMpiCpu, "1", 1);
  if (opt.region_cpu) setenv(env::kRegionCpu, "1", 1);
  if (opt.region_counters) setenv(env::kRegionCounters, "1", 1);
  if (!l.counters.empty()) setenv(env::kCounters, l.counters.c_str(), 1);
  if (!l.counter_encodings.empty()) setenv(env::kCounterEncoding, l.counter_encodings.c_str(), 1);
}

// Starts the program and waits for it, like a shell: the terminal's SIGINT/SIGQUIT reach the
// program itself; signals sent to omprof alone (a scheduler's SIGTERM) are passed on. Returns
// false with `exec_errno` set if the program could not be executed (0: omprof itself failed,
// and said so).
bool run_and_wait(const RunOptions& opt, const Launch& l, pid_t& child, int& status,
                  int& exec_errno) {
  // The child reports a failed exec through this close-on-exec pipe, so that omprof can say so
  // and exit 126/127 like a shell instead of describing a run that never happened.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "omprof: pipe failed: %s\n", std::strerror(errno));
    return false;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "omprof: fork failed: %s\n", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    set_collector_environment(opt, l);
    std::vector<char*> argv;
    for (const auto& a : opt.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(l.program.c_str(), argv.data());
    const int err = errno;
    (void)!write(exec_pipe[1], &err, sizeof err);
    _exit(err == ENOENT ? 127 : 126);
  }
  close(exec_pipe[1]);
  ssize_t got;
  while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  if (got == ssize_t(sizeof exec_errno)) {
    waitpid(pid, nullptr, 0);
    return false;
  }
  g_child = pid;
  child = pid;
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  for (int sig : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) signal(sig, forward_signal);
  siginfo_t ended{};  // ended, not yet reaped: its /proc entry still says what it used
  while (waitid(P_PID, id_t(pid), &ended, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  if (!opt.children) note_unprofiled_children(pid, l.program);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

// MPI programs get the MPI wrappers (mpi/) preloaded too; others never load MPI code. There is
// one build of the wrappers per MPI library (libomprof_mpi.so for Open MPI,
// libomprof_mpi_mpich.so for MPICH, where each was found at build time); --mpi=auto asks the
// program's loader which MPI library it loads. 0 or the exit status.
int choose_mpi_wrappers(const RunOptions& opt, Launch& l) {
  if (opt.mpi == "off") return 0;
  std::vector<std::string> wrappers, sonames;
  for (const char* name : {"libomprof_mpi.so", "libomprof_mpi_mpich.so"}) {
    const std::string path = dir_of(l.collector) + "/" + name;
    if (access(path.c_str(), R_OK) != 0) continue;
    wrappers.push_back(path);
    sonames.push_back(wrapped_mpi_library(path));
  }
  if (wrappers.empty()) {
    if (opt.mpi == "on") {
      std::fprintf(stderr,
                   "omprof: --mpi=on: no MPI wrappers next to %s (omprof was built without "
                   "MPI)\n",
                   l.collector.c_str());
      return 2;
    }
    return 0;
  }
  const MpiCheck mpi = check_mpi(l.program, sonames);
  if (mpi.loads >= 0) {
    l.mpi_wrappers = wrappers[size_t(mpi.loads)];
  } else if (opt.mpi == "on") {
    l.mpi_wrappers = wrappers.front();  // the program loads MPI later (dlopen): the default's
  } else if (!mpi.other_library.empty()) {
    std::string built;
    for (const auto& s : sonames) built += (built.empty() ? "" : ", ") + s;
    std::fprintf(stderr,
                 "omprof: warning: %s uses %s, not an MPI library omprof's MPI wrappers are "
                 "built for (%s): time in MPI is not measured and shows as work\n",
                 l.program.c_str(), mpi.other_library.c_str(), built.c_str());
  }
  return 0;
}

// Everything the launcher checks and prepares before starting the program; 0 or the status.
int prepare_launch(const RunOptions& opt, const std::string& self_path, Launch& l) {
  if (opt.command.empty()) {
    std::fprintf(
        stderr,
        "omprof: run: no program given (usage: omprof run [options] -- PROGRAM [ARGS...])\n");
    return 2;
  }
  const std::string& name = opt.command[0];
  if (name.empty()) {
    std::fprintf(stderr, "omprof: run: the program's name is an empty string\n");
    return 2;
  }
  std::string reason;
  int fail_status = 127;
  l.program = resolve_program(name, reason, fail_status);
  if (l.program.empty()) {
    std::fprintf(stderr, "omprof: cannot execute '%s': %s\n", name.c_str(), reason.c_str());
    return fail_status;
  }
  if (int rc = prepare_output_dir(opt.output_dir, l.output_dir)) return rc;
  if (int rc = choose_clock(opt.clock, l.clock, l.clock_choice)) return rc;
  if (opt.counters_given || !opt.counters.empty())
    if (int rc = check_counters(opt.counters, l.counters, l.counter_encodings)) return rc;
  if (opt.region_counters && l.counters.empty()) {
    std::fprintf(stderr, "omprof: --region-counters needs --counters LIST (the events to read)\n");
    return 2;
  }
  l.collector = find_collector(self_path);
  if (l.collector.empty()) {
    std::fprintf(
        stderr,
        "omprof: cannot find libomprof.so next to the omprof executable (set OMPROF_LIBRARY)\n");
    return 2;
  }
  return choose_mpi_wrappers(opt, l);
}

}  // namespace

int run_program(const RunOptions& opt, const std::string& self_path) {
  Launch l;
  if (int rc = prepare_launch(opt, self_path, l)) return rc;
  // Private scratch: the launcher's manifest and, for libgomp programs, the libomp stand-in.
  const char* tmp = std::getenv("TMPDIR");
  const std::string tmp_dir = tmp && *tmp ? tmp : "/tmp";
  std::string scratch = tmp_dir + "/omprof.XXXXXX";
  if (!mkdtemp(scratch.data())) {
    std::fprintf(stderr, "omprof: cannot create a temporary directory in '%s'%s: %s\n",
                 tmp_dir.c_str(), tmp && *tmp ? " (TMPDIR)" : "", std::strerror(errno));
    return 2;
  }
  l.manifest = scratch + "/manifest";
  { std::ofstream(l.manifest).flush(); }
  l.library_path = libomp_instead_of_libgomp(l.program, opt.command[0], opt.omp_runtime, scratch,
                                             l.collector, l.gomp_wrappers);

  int status = 0, exec_errno = 0, code = 0;
  pid_t child = 0;
  const bool ran = run_and_wait(opt, l, child, status, exec_errno);
  if (ran) {
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    report_run(l.manifest, l.program, child, status);
  } else if (exec_errno == 0) {
    code = 2;
  } else {
    std::fprintf(stderr, "omprof: cannot execute '%s': %s\n", opt.command[0].c_str(),
                 std::strerror(exec_errno));
    code = exec_errno == ENOENT ? 127 : 126;
  }
  unlink(l.manifest.c_str());
  if (!l.library_path.empty()) unlink((scratch + "/libgomp.so.1").c_str());
  rmdir(scratch.c_str());
  if (ran && WIFSIGNALED(status)) die_like_the_program(WTERMSIG(status));
  return code;
}

}  // namespace omprof::launcher
