#include "collector/wait_context.h"

#include "collector/handler/omp_inquiry.h"
#include "collector/handler/parallel_value.h"
#include "collector/region_context.h"

namespace omprof {

journal::SampleContext wait_context(const handler::ThreadState& ts, uint64_t parallel_value,
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
