/* An OMPT tool that registers nothing: the baseline cost of having a tool at all. With
 * OMPROF_EMPTY_TOOL_CALLBACKS=1 it registers empty task_schedule, task_create and
 * sync_region_wait callbacks: the floor for any tool that needs them (bench/task_overhead.sh). With
 * OMPROF_EMPTY_TOOL_CALLBACKS=all it registers every callback omprof registers, empty: what
 * libomp itself costs a tool that listens where omprof does (bench/tiny_regions.sh). With
 * OMPROF_EMPTY_TOOL_CALLBACKS=clock the parallel, implicit-task and sync-wait callbacks also
 * read CLOCK_MONOTONIC once each: the floor of timing waits and fork/join exactly. With
 * OMPROF_EMPTY_TOOL_CALLBACKS=tsc they read the TSC instead, as omprof's clock does where the
 * kernel keeps time with the TSC (collector/handler/wall_clock.h). */
#include <omp-tools.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

static int g_read_clock; /* 1: CLOCK_MONOTONIC, 2: the TSC */
static __thread long long t_sink;
static void tick(void) {
  if (!g_read_clock) return;
  if (g_read_clock == 2) {
    t_sink += (long long)__builtin_ia32_rdtsc();
    return;
  }
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  t_sink += t.tv_nsec;
}

static void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  (void)prior;
  (void)status;
  (void)next;
}
static void on_task_create(ompt_data_t* parent, const ompt_frame_t* frame, ompt_data_t* task,
                           int flags, int deps, const void* codeptr) {
  (void)parent;
  (void)frame;
  (void)task;
  (void)flags;
  (void)deps;
  (void)codeptr;
}
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t* parallel, ompt_data_t* task, const void* codeptr) {
  tick();
  (void)kind;
  (void)endpoint;
  (void)parallel;
  (void)task;
  (void)codeptr;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t* thread) {
  (void)type;
  (void)thread;
}
static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* parallel,
                              unsigned size, int flags, const void* codeptr) {
  tick();
  (void)task;
  (void)frame;
  (void)parallel;
  (void)size;
  (void)flags;
  (void)codeptr;
}
static void on_parallel_end(ompt_data_t* parallel, ompt_data_t* task, int flags,
                            const void* codeptr) {
  tick();
  (void)parallel;
  (void)task;
  (void)flags;
  (void)codeptr;
}
static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                             ompt_data_t* task, unsigned size, unsigned index, int flags) {
  tick();
  (void)endpoint;
  (void)parallel;
  (void)task;
  (void)size;
  (void)index;
  (void)flags;
}
static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id,
                             const void* codeptr) {
  (void)kind;
  (void)hint;
  (void)impl;
  (void)id;
  (void)codeptr;
}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void* codeptr) {
  (void)kind;
  (void)id;
  (void)codeptr;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device;
  (void)data;
  const char* with = getenv("OMPROF_EMPTY_TOOL_CALLBACKS");
  if (with && (*with == '1' || *with == 'a' || *with == 'c' || *with == 't')) {
    g_read_clock = *with == 'c' ? 1 : *with == 't' ? 2 : 0;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    if (*with != '1') { /* "all", "clock" or "tsc" */
      set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
      set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
      set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
      set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
      set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
      set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
    }
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
