/* About 1 ms of OpenMP work (2 threads): what a run costs beyond the program is omprof's fixed
 * cost per process (bench/fixed_cost.sh). */
#include <stdio.h>
int main(void) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000000; ++i) s += 1.0 / (i + 1);
  printf("%f\n", s);
  return 0;
}
