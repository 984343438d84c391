#include "launcher/run_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "launcher/preload_check.h"
#include "launcher/viewer_exec.h"
#include "proto/manifest.h"

namespace omprof::launcher {

namespace {

uint64_t unix_now_ns() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return uint64_t(t.tv_sec) * 1000000000ULL + uint64_t(t.tv_nsec);
}

// The CPU time a process that has ended (a zombie, not yet reaped) used itself and the CPU time
// of the processes it started and waited for, from /proc/PID/stat; false if unreadable.
bool ended_process_cpu(pid_t pid, double& own_s, double& children_s) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream fields(stat.substr(paren + 1));
  std::vector<std::string> f;
  for (std::string w; fields >> w;) f.push_back(w);
  if (f.size() < 15) return false;  // f[0] is field 3 (state): utime is field 14
  const double tick = double(sysconf(_SC_CLK_TCK));
  own_s = (std::atof(f[11].c_str()) + std::atof(f[12].c_str())) / tick;
  children_s = (std::atof(f[13].c_str()) + std::atof(f[14].c_str())) / tick;
  return true;
}

}  // namespace

void note_unprofiled_children(pid_t pid, const std::string& program) {
  double own_s = 0, children_s = 0;
  if (!ended_process_cpu(pid, own_s, children_s)) return;
  if (children_s < 0.05 || children_s <= own_s) return;
  std::fprintf(stderr,
               "omprof: note: the processes %s started used %.2f s of CPU time (%.2f s in %s "
               "itself) and were not profiled; omprof run --children profiles them too\n",
               program.c_str(), children_s, own_s, program.c_str());
}

void report_run(const std::string& manifest_path, const std::string& program, pid_t child,
                int status) {
  const uint64_t end_unix_ns = unix_now_ns();
  std::ifstream in(manifest_path);
  std::string line;
  int profiles = 0, collectors_started = 0;
  std::vector<JournalOf> journals;
  while (std::getline(in, line)) {
    const manifest::Entry e = manifest::parse_line(line);
    const auto& f = e.fields;
    switch (e.kind) {
      case manifest::Kind::kOk:
        ++profiles;
        std::fprintf(stderr,
                     "omprof: profile %s: %s samples, %s thread%s, %s dropped, %s truncated\n",
                     f[0].c_str(), f[1].c_str(), f[2].c_str(), f[2] == "1" ? "" : "s", f[3].c_str(),
                     f[4].c_str());
        break;
      case manifest::Kind::kError:
        ++profiles;
        std::fprintf(stderr, "omprof: no profile: %s\n", f[0].c_str());
        break;
      case manifest::Kind::kWarning:
        std::fprintf(stderr, "omprof: warning: %s\n", f[0].c_str());
        break;
      case manifest::Kind::kNote:
        std::fprintf(stderr, "omprof: %s\n", f[0].c_str());
        break;
      case manifest::Kind::kStart:
        ++collectors_started;
        if (f.size() == 2) journals.push_back({pid_t(std::atoi(f[0].c_str())), f[1]});
        break;
      case manifest::Kind::kUnknown:
        break;
    }
  }
  profiles += recover_journals(journals, child, status, end_unix_ns);
  if (profiles != 0) return;
  const std::string cannot_preload = why_preload_is_ignored(program);
  if (collectors_started == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
    // The loader's own message (above, on the program's stderr) names what is missing.
    std::fprintf(stderr,
                 "omprof: no profile written: %s could not start (exit status 127: the loader "
                 "could not load it or a library it needs; see the loader's error above)\n",
                 program.c_str());
  else if (collectors_started == 0 && !cannot_preload.empty())
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
                 "omprof: no profile written: the program ended without running exit handlers "
                 "(through _exit or _Exit, or an exec without the collector)\n");
}

}  // namespace omprof::launcher
