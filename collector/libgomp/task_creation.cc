// omprof's libgomp wrappers, task creation (the rest: regions.cc, waits.cc): a deferred task's
// creation path, and the time the creating thread sleeps on the runtime's task lock while
// GOMP_task queues it (openmp::runtime_call_sleep).
#include <cstdint>

#include "collector/handler/parallel_value.h"
#include "collector/handler/thread_state.h"
#include "collector/libgomp/bridge.h"
#include "collector/libgomp/gomp_thread.h"
#include "collector/openmp/events.h"
#include "collector/openmp/fork_records.h"
#include "collector/openmp/wait_clocks.h"
#include "collector/runtime.h"
#include "proto/state_codes.h"

namespace {

using omprof::gomp::context_now;
using omprof::gomp::cpu_at;
using omprof::gomp::GompThread;
using omprof::gomp::own;
using omprof::gomp::tracked_thread;
using omprof::handler::ThreadState;
namespace pv = omprof::handler::parallel_value;
namespace fmt = omprof::format;

// A runtime call that may sleep on the runtime's own lock begins (omprof_gomp_runtime_call): its
// clocks, only where none needs a system call unless the thread is switched out (the run
// queue's time is read once between two switches at most; the call's end compares one word).
void begin_runtime_call(GompThread& g, omprof_gomp_runtime_call* call) {
  if (!g.cpu_clock.cheap() || !g.cpu_clock.run_delay(&call->clock.run_delay_start_ns)) return;
  const omprof::clocks::SwitchWatch::Mark m = g.cpu_clock.mark();
  call->clock.start_ns = m.wall_ns;
  call->clock.cpu_start_ns = m.cpu_ns;
  call->clock.tasks_begun = g.tasks_begun;
  call->switch_seq = m.seq;
}

}  // namespace

#define OMPROF_EXPORT extern "C" __attribute__((visibility("default")))

OMPROF_EXPORT uint32_t omprof_internal_gomp_task_create(const void* codeptr_ra,
                                                        const void* enter_frame,
                                                        omprof_gomp_runtime_call* call) {
  call->clock.start_ns = 0;
  ThreadState* ts = tracked_thread();
  if (!ts || !ts->omp.gomp.thread) return 0;
  GompThread& g = own(ts);
  const uint64_t cut = g.task_cut;
  if (cut == 0) return 0;
  // The creating context: the running task's record, else the innermost region.
  uint64_t parent = ts->omp.task_origin;
  if (!parent) parent = pv::fork_id(ts->omp.gomp.parallel_value);
  if (!parent) return 0;
  const uint32_t record =
      omprof::openmp::record_task_creation(codeptr_ra, enter_frame, parent, cut);
  if (record) {
    call->codeptr = codeptr_ra ? reinterpret_cast<uint64_t>(codeptr_ra) - 1 : 0;
    begin_runtime_call(g, call);
  }
  return record;
}

OMPROF_EXPORT void omprof_internal_gomp_runtime_call_restart(omprof_gomp_runtime_call* call) {
  if (call->clock.start_ns == 0) return;
  call->clock.start_ns = 0;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  begin_runtime_call(own(ts), call);
}

OMPROF_EXPORT void omprof_internal_gomp_runtime_call_end(const omprof_gomp_runtime_call* call) {
  if (call->clock.start_ns == 0) return;
  ThreadState* ts = tracked_thread();
  if (!ts) return;
  GompThread& g = own(ts);
  if (!g.cpu_clock.switched_since(call->switch_seq)) return;  // never off the CPU
  const uint64_t now = omprof::monotonic_ns();
  const uint64_t cpu = cpu_at(ts, now);
  uint64_t run_delay = 0;
  if (!g.cpu_clock.run_delay(&run_delay)) return;
  const uint64_t slept =
      omprof::openmp::runtime_call_sleep(call->clock, now, cpu, run_delay, g.tasks_begun);
  if (slept)
    omprof::openmp::record_wait(ts, call->codeptr, context_now(ts, fmt::kOverheadTask), slept, now);
}
