/* An OMPT tool that registers nothing: the baseline cost of having a tool at all. */
#include <omp-tools.h>
#include <stddef.h>

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)lookup;
  (void)device;
  (void)data;
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
