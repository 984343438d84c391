/* An OMPT tool that registers nothing: the baseline cost of having a tool at all. With
 * OMPROF_EMPTY_TOOL_CALLBACKS=1 it registers empty task_schedule and sync_region_wait
 * callbacks: the floor for any tool that needs them (bench/task_overhead.sh). */
#include <omp-tools.h>
#include <stddef.h>
#include <stdlib.h>

static void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  (void)prior;
  (void)status;
  (void)next;
}
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t* parallel, ompt_data_t* task, const void* codeptr) {
  (void)kind;
  (void)endpoint;
  (void)parallel;
  (void)task;
  (void)codeptr;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device;
  (void)data;
  const char* with = getenv("OMPROF_EMPTY_TOOL_CALLBACKS");
  if (with && *with == '1') {
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
  }
  return 1;
}
static void finalize(ompt_data_t* data) {
  (void)data;
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int v, const char* r) {
  (void)v;
  (void)r;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
