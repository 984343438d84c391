#include "collector/context_switches.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collector/clocks/clocks.h"
#include "collector/run_report.h"
#include "collector/thread_registry.h"
#include "proto/manifest.h"

namespace omprof {

uint64_t own_context_switches() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return uint64_t(u.ru_nvcsw) + uint64_t(u.ru_nivcsw);
}

uint64_t context_switches_of(pid_t tid) {
  // open/read into the stack: nothing from the program's heap (stdio would allocate).
  char path[64], text[4096];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", int(tid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t got = 0, n;
  while (got < ssize_t(sizeof text) - 1 && (n = read(fd, text + got, sizeof text - 1 - got)) > 0)
    got += n;
  close(fd);
  text[got > 0 ? got : 0] = 0;
  uint64_t total = 0;
  for (const char* key : {"\nvoluntary_ctxt_switches:", "\nnonvoluntary_ctxt_switches:"})
    if (const char* at = std::strstr(text, key))
      total += std::strtoull(at + std::strlen(key), nullptr, 10);
  return total;
}

void note_task_clock_cost() {
  uint64_t switches = 0, cpu_ns = 0, moved = 0, max_rate = 0;
  for (uint32_t i = 0; i < thread_count(); ++i) {
    const ThreadState* ts = thread_at(i);
    if (ts && ts->cpu_clock_from_ns > 0) {
      ++moved;
      if (ts->switches_per_cpu_s_at_move > max_rate) max_rate = ts->switches_per_cpu_s_at_move;
    }
    if (!ts || ts->clock != &clocks::task_clock()) continue;
    switches += ts->context_switches;
    cpu_ns += ts->cpu_ns_at_exit.load();
  }
  if (moved > 0) {
    char text[300];
    std::snprintf(text, sizeof text,
                  "%llu threads moved from the task clock to the cpu clock when they switched "
                  "up to %llu times per CPU-second (each switch costs the task clock about "
                  "5 us on some virtual machines; --clock task keeps it)",
                  static_cast<unsigned long long>(moved),
                  static_cast<unsigned long long>(max_rate));
    append_manifest(manifest::note_line(text));
  }
  constexpr double kNotedPerCpuSecond = 2000;  // 1% of CPU time at 5 us a switch
  if (cpu_ns == 0 || double(switches) < kNotedPerCpuSecond * double(cpu_ns) * 1e-9) return;
  char text[400];
  std::snprintf(text, sizeof text,
                "the task clock costs every context switch (about 5 us on some virtual "
                "machines); the sampled threads switched %llu times in %.2f s of CPU time "
                "(%.0f per CPU-second): if the program ran slower under omprof, --clock cpu "
                "avoids that cost",
                static_cast<unsigned long long>(switches), double(cpu_ns) * 1e-9,
                double(switches) / (double(cpu_ns) * 1e-9));
  append_manifest(manifest::note_line(text));
}

}  // namespace omprof
