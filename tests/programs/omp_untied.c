/* Ground truth for waits around untied tasks (BOTS sparselu_single's shape): one thread of a
 * team of two creates an untied producer task (single nowait) and goes to the region's end
 * barrier; the producer creates STEPS times CHILDREN untied children of UNIT_MS of CPU time each
 * and waits for them (taskwait); more children than a thread's task queue holds (256 in libomp)
 * make the runtime suspend and resume the producer as it creates them. Both threads run the
 * producer's parts and the children from the barrier: neither waits long, and no thread's time can
 * exceed its life. libomp 14 names the untied producer as the prior task when a thread back in its
 * barrier resumes it. Prints "region_s R": the region's wall seconds. Usage: omp_untied [STEPS=10
 * [UNIT_MS=0.1 [CHILDREN=600]]] (two threads) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

TEST_NOINLINE static void child(double seconds) {
  spin_cpu(seconds);
}

TEST_NOINLINE static void produce(int steps, double unit, int children) {
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < children; ++k) {
#pragma omp task untied
      child(unit);
    }
#pragma omp taskwait
  }
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 10;
  const double unit = (argc > 2 ? atof(argv[2]) : 0.1) * 1e-3;
  const int children = argc > 3 ? atoi(argv[3]) : 600;
  const double start = clock_seconds(CLOCK_MONOTONIC);
#pragma omp parallel num_threads(2)
#pragma omp single nowait
#pragma omp task untied
  produce(steps, unit, children);
  printf("region_s %.6f\n", clock_seconds(CLOCK_MONOTONIC) - start);
  return 0;
}
