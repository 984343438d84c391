#include "collector/openmp/wait_clocks.h"

#include "collector/openmp/wait_split.h"

namespace omprof::openmp {

uint64_t sleep_part(const WaitClock& w, uint64_t off_ns, uint64_t run_delay_now_ns) {
  if (!w.sleep_only) return off_ns;
  const uint64_t queued =
      run_delay_now_ns > w.run_delay_start_ns ? run_delay_now_ns - w.run_delay_start_ns : 0;
  return off_ns > queued ? off_ns - queued : 0;
}

uint64_t runtime_call_sleep(const RuntimeCallClock& c, uint64_t now_ns, uint64_t cpu_ns,
                            uint64_t run_delay_now_ns, uint64_t tasks_begun_now) {
  if (c.start_ns == 0 || tasks_begun_now != c.tasks_begun) return 0;
  WaitClock w;
  w.sleep_only = true;
  w.run_delay_start_ns = c.run_delay_start_ns;
  return sleep_part(w, off_cpu_ns(c.start_ns, c.cpu_start_ns, now_ns, cpu_ns), run_delay_now_ns);
}

}  // namespace omprof::openmp
