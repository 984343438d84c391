#include "collector/machine_load.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace omprof {

namespace {

// The file's first bytes, NUL-terminated ("" when it cannot be read).
void read_text(const char* path, char* text, size_t size) {
  text[0] = 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t got = 0, n;
  while (got < ssize_t(size) - 1 && (n = read(fd, text + got, size - 1 - size_t(got))) > 0)
    got += n;
  close(fd);
  text[got > 0 ? got : 0] = 0;
}

uint64_t field_after(const char* text, const char* key) {
  const char* at = std::strstr(text, key);
  return at ? std::strtoull(at + std::strlen(key), nullptr, 10) : 0;
}

// schedstat: "<on-CPU ns> <run-queue ns> <timeslices>".
uint64_t run_delay_in(const char* path) {
  char text[128];
  read_text(path, text, sizeof text);
  char* end = nullptr;
  std::strtoull(text, &end, 10);
  return end && end != text ? std::strtoull(end, nullptr, 10) : 0;
}

// The aggregate "cpu" line of /proc/stat, in clock ticks: all of it, and its steal part.
struct CpuTimes {
  uint64_t total = 0, steal = 0;
};
CpuTimes cpu_times() {
  char text[512];
  read_text("/proc/stat", text, sizeof text);
  CpuTimes t;
  if (std::strncmp(text, "cpu ", 4) != 0) return t;
  const char* p = text + 4;
  // user nice system idle iowait irq softirq steal (guest times are already in user and nice).
  for (int field = 0; field < 8; ++field) {
    char* end = nullptr;
    const uint64_t v = std::strtoull(p, &end, 10);
    if (end == p) break;
    t.total += v;
    if (field == 7) t.steal = v;
    p = end;
  }
  return t;
}

CpuTimes g_start_times;
uint32_t g_cpus_allowed = 0;

std::vector<std::string>& settings() {
  static auto* s = new std::vector<std::string>;  // never destroyed: read at shutdown
  return *s;
}

}  // namespace

// The CPUs thread `tid` (0: the calling thread) may run on.
static void affinity_of(pid_t tid, uint64_t (&mask)[16]) {
  for (uint64_t& word : mask) word = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return;
  for (int cpu = 0; cpu < 1024 && cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) mask[cpu / 64] |= uint64_t(1) << (cpu % 64);
}

ThreadScheduling own_scheduling() {
  ThreadScheduling s;
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) == 0) {
    s.voluntary_switches = uint64_t(u.ru_nvcsw);
    s.involuntary_switches = uint64_t(u.ru_nivcsw);
  }
  s.run_delay_ns = run_delay_in("/proc/thread-self/schedstat");
  affinity_of(0, s.cpu_mask);
  return s;
}

ThreadScheduling scheduling_of(pid_t tid) {
  ThreadScheduling s;
  char path[64], text[4096];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", int(tid));
  read_text(path, text, sizeof text);
  s.voluntary_switches = field_after(text, "\nvoluntary_ctxt_switches:");
  s.involuntary_switches = field_after(text, "\nnonvoluntary_ctxt_switches:");
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", int(tid));
  s.run_delay_ns = run_delay_in(path);
  affinity_of(tid, s.cpu_mask);
  return s;
}

const std::vector<std::string>& omp_settings() {
  return settings();
}

void note_machine_at_start() {
  for (char** e = environ; e && *e; ++e)
    for (const char* prefix : {"OMP_", "KMP_", "GOMP_"})
      if (std::strncmp(*e, prefix, std::strlen(prefix)) == 0) settings().emplace_back(*e);
  g_start_times = cpu_times();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) g_cpus_allowed = uint32_t(CPU_COUNT(&set));
}

MachineLoad machine_load_at_end() {
  MachineLoad m;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  m.cpus_online = online > 0 ? uint32_t(online) : 0;
  m.cpus_allowed = g_cpus_allowed;
  const CpuTimes now = cpu_times();
  if (now.total > g_start_times.total && now.steal >= g_start_times.steal)
    m.steal_permille =
        uint32_t(1000 * (now.steal - g_start_times.steal) / (now.total - g_start_times.total));
  char text[128];
  read_text("/proc/loadavg", text, sizeof text);
  // "1.72 ...": parsed by hand, since the program's locale may not use a decimal point.
  char* end = nullptr;
  uint64_t milli = std::strtoull(text, &end, 10) * 1000;
  if (end && *end == '.')
    for (uint64_t scale = 100; scale > 0 && end[1] >= '0' && end[1] <= '9'; scale /= 10, ++end)
      milli += uint64_t(end[1] - '0') * scale;
  m.load_avg_milli = uint32_t(milli);
  return m;
}

}  // namespace omprof
