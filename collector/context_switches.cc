#include "collector/context_switches.h"

#include <cstdio>
#include <string>

#include "collector/clocks/clocks.h"
#include "collector/run_report.h"
#include "collector/thread_registry.h"
#include "proto/manifest.h"

namespace omprof {

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
