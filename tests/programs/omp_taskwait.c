/* Taskwait ground truth: the master creates one long task, lets the other thread (already
 * waiting at the region's end barrier, where it runs tasks) take it, then waits for it at a
 * taskwait for about 130 ms, five times. It prints the wall time it spent in the taskwaits,
 * measured around them: how long the wait really was on this machine. If the other thread was
 * too slow to take the task (a busy machine, a sleeping thread), the master runs it inside the
 * taskwait: that time is work, not waiting, and is not counted. It also prints the CPU time of
 * its taskwaits: on a loaded machine the wall time minus it was spent off the CPU.
 * The argument says how the child is made, each a way a profiler of libgomp may miss that the
 * taskwait has a child to wait for: "task" (the default), "taskloop" (a one-task taskloop with
 * nogroup, its task made inside the runtime), "inline" (a task, then a task run at once, if(0),
 * that makes a taskwait of its own with nothing to wait for, before the master's). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "omp_common.h"

static double g_waited, g_waited_cpu, g_master_ran, g_master_ran_cpu, g_child_wall;

TEST_NOINLINE void child_task(void) {
  const double t0 = omp_get_wtime(), c0 = thread_cpu_seconds();
  spin_cpu(0.150);
  const double took = omp_get_wtime() - t0;
  g_child_wall += took; /* one task at a time: no race */
  if (omp_get_thread_num() == 0) {
    g_master_ran += took;
    g_master_ran_cpu += thread_cpu_seconds() - c0;
  }
}

static char g_mode = 't';

TEST_NOINLINE void make_child(void) {
  if (g_mode == 'l') {
#pragma omp taskloop nogroup num_tasks(1)
    for (int k = 0; k < 1; ++k) child_task();
  } else {
#pragma omp task
    child_task();
  }
}

TEST_NOINLINE void wait_for_child(void) {
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      make_child();
      spin_cpu(0.020); /* the other thread takes the task meanwhile */
      if (g_mode == 'i') {
#pragma omp task if (0)
        {
#pragma omp taskwait
        }
      }
      const double t0 = omp_get_wtime(), c0 = thread_cpu_seconds();
#pragma omp taskwait
      g_waited += omp_get_wtime() - t0;
      g_waited_cpu += thread_cpu_seconds() - c0;
    }
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "taskloop") == 0) g_mode = 'l';
  if (argc > 1 && strcmp(argv[1], "inline") == 0) g_mode = 'i';
  for (int i = 0; i < 5; ++i) wait_for_child();
  printf("taskwait_wall=%.6f master_ran_child=%.6f child_wall=%.6f taskwait_cpu=%.6f\n",
         g_waited - g_master_ran, g_master_ran, g_child_wall, g_waited_cpu - g_master_ran_cpu);
  return 0;
}
