// Where an exact wait or an overhead interval is recorded: the one rule both runtimes' adapters
// use (the OMPT callbacks, collector/ompt/; the libgomp adapter,
// collector/libgomp/), so that a measured interval lies where the thread's samples at that moment
// do.
#pragma once

#include <cstdint>

#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/handler/thread_state.h"
#include "collector/region_context.h"

namespace omprof {

// The calling thread's context now, in the parallel region whose value is `parallel_value`
// (handler/parallel_value.h; 0: none) and in `state` (0: the caller sets it later): the region's
// fork, the thread's number in it, its explicit region and the deferred task it runs.
// Inline: called on every measured wait, whose callers read the context back at once.
inline journal::SampleContext wait_context(const handler::ThreadState& ts, uint64_t parallel_value,
                                           uint32_t state) {
  journal::SampleContext ctx;
  ctx.fork_id = handler::parallel_value::fork_id(parallel_value);
  if (ctx.fork_id) ctx.omp_thread_num = ts.omp.thread_num;
  ctx.region_node = current_region_node();
  ctx.omp_state = state;
  ctx.task_origin = handler::running_task_origin(&ts);  // under its task, as samples are
  return ctx;
}

}  // namespace omprof
