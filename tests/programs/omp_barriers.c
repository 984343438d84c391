/* Three kinds of barrier with designed waits (500, 200 and 350 units: a swap of names fails), each
 * measured by the program itself (wall time from a thread's arrival to its departure, summed over
 * threads): the end of an `omp for` (thread 1 waits for thread 0's longer iteration), an explicit
 * `omp barrier` (thread 1 waits again) and the end of the parallel region (thread 0 waits). omprof
 * must name each one. It also prints, per kind, the waiting threads' time off the CPU during those
 * waits (wall minus thread CPU time; about zero on a quiet machine, where libomp spins): a thread
 * preempted while it waits stays waiting here, and omprof counts what exceeds the team's imbalance
 * as the barrier's overhead. And the lateness of the thread waited for: how much later than
 * the waiter it left its previous synchronization point (omprof's barrier spans count from
 * there: a late start is the runtime's, docs/semantics.md). */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

int main(void) {
  double worksharing = 0, explicit_barrier = 0, region_end = 0;
  double worksharing_off = 0, explicit_off = 0, master_end_off = 0;
  double worksharing_late = 0, explicit_late = 0, region_end_late = 0;
  for (int step = 0; step < 20; ++step) {
    double arrive_for[2] = {0, 0}, arrive_end[2] = {0, 0}, arrive_explicit[2] = {0, 0};
    double leave_for[2] = {0, 0}, leave_explicit[2] = {0, 0};
    double off_for[2] = {0, 0}, off_explicit[2] = {0, 0}, master_arrive_cpu = 0;
    double begin[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num();
      begin[t] = omp_get_wtime();
#pragma omp for schedule(static)
      for (int i = 0; i < 2; ++i) {
        burn(i == 0 ? 600 : 100);
        off_for[t] = -thread_cpu_seconds();
        arrive_for[t] = omp_get_wtime();
      }
      leave_for[t] = omp_get_wtime();
      off_for[t] += leave_for[t] - arrive_for[t] - thread_cpu_seconds();
      burn(t == 0 ? 300 : 100);
      off_explicit[t] = -thread_cpu_seconds();
      arrive_explicit[t] = omp_get_wtime();
#pragma omp barrier
      leave_explicit[t] = omp_get_wtime();
      off_explicit[t] += leave_explicit[t] - arrive_explicit[t] - thread_cpu_seconds();
      burn(t == 1 ? 450 : 100);
      if (t == 0) master_arrive_cpu = thread_cpu_seconds();
      arrive_end[t] = omp_get_wtime();
    }
    const double end = omp_get_wtime();
    master_end_off += end - arrive_end[0] - (thread_cpu_seconds() - master_arrive_cpu);
    /* The thread waited for left its previous synchronization point (the region's start, the
     * previous barrier) later than the waiter: part of the wait is that lateness. */
    worksharing_late += begin[0] > begin[1] ? begin[0] - begin[1] : 0;
    explicit_late += leave_for[0] > leave_for[1] ? leave_for[0] - leave_for[1] : 0;
    region_end_late +=
        leave_explicit[1] > leave_explicit[0] ? leave_explicit[1] - leave_explicit[0] : 0;
    for (int t = 0; t < 2; ++t) {
      worksharing += leave_for[t] - arrive_for[t];
      explicit_barrier += leave_explicit[t] - arrive_explicit[t];
      region_end += end - arrive_end[t];
      worksharing_off += off_for[t] > 0 ? off_for[t] : 0;
      explicit_off += off_explicit[t] > 0 ? off_explicit[t] : 0;
    }
  }
  printf("worksharing=%.6f explicit=%.6f region_end=%.6f\n", worksharing, explicit_barrier,
         region_end);
  printf("off_cpu: worksharing=%.6f explicit=%.6f master_region_end=%.6f\n", worksharing_off,
         explicit_off, master_end_off > 0 ? master_end_off : 0);
  printf("late_start: worksharing=%.6f explicit=%.6f region_end=%.6f\n", worksharing_late,
         explicit_late, region_end_late);
  return 0;
}
