/* Three kinds of barrier with designed waits (500, 200 and 350 units: a swap of names fails), each
 * measured by the program itself (wall time from a thread's arrival to its departure, summed over
 * threads): the end of an `omp for` (thread 1 waits for thread 0's longer iteration), an explicit
 * `omp barrier` (thread 1 waits again) and the end of the parallel region (thread 0 waits). omprof
 * must name each one. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

int main(void) {
  double worksharing = 0, explicit_barrier = 0, region_end = 0;
  for (int step = 0; step < 20; ++step) {
    double arrive_for[2] = {0, 0}, arrive_end[2] = {0, 0}, arrive_explicit[2] = {0, 0};
    double leave_for[2] = {0, 0}, leave_explicit[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num();
#pragma omp for schedule(static)
      for (int i = 0; i < 2; ++i) {
        burn(i == 0 ? 600 : 100);
        arrive_for[t] = omp_get_wtime();
      }
      leave_for[t] = omp_get_wtime();
      burn(t == 0 ? 300 : 100);
      arrive_explicit[t] = omp_get_wtime();
#pragma omp barrier
      leave_explicit[t] = omp_get_wtime();
      burn(t == 1 ? 450 : 100);
      arrive_end[t] = omp_get_wtime();
    }
    const double end = omp_get_wtime();
    for (int t = 0; t < 2; ++t) {
      worksharing += leave_for[t] - arrive_for[t];
      explicit_barrier += leave_explicit[t] - arrive_explicit[t];
      region_end += end - arrive_end[t];
    }
  }
  printf("worksharing=%.6f explicit=%.6f region_end=%.6f\n", worksharing, explicit_barrier,
         region_end);
  return 0;
}
