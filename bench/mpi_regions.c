/* For the MPI summary benchmark (bench/mpi_summary.sh): each rank opens PATHS distinct region
 * paths (outer "phaseI", inner "kernelJ", 10 kernels per phase), a few times each, then calls
 * MPI_Finalize, where omprof reduces them over ranks.
 * Usage: bench_mpi_regions PATHS */
#include <mpi.h>
#include <omprof/omprof.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int paths = argc > 1 ? atoi(argv[1]) : 1000;
  char outer[32], inner[32];
  for (int rep = 0; rep < 3; ++rep) {
    for (int p = 0; p < paths; p += 10) {
      snprintf(outer, sizeof outer, "phase%d", p / 10);
      omprof_region_begin(outer);
      for (int k = 0; k < 10 && p + k < paths; ++k) {
        snprintf(inner, sizeof inner, "kernel%d", k);
        omprof_region_begin(inner);
        omprof_region_end(inner);
      }
      omprof_region_end(outer);
    }
  }
  MPI_Finalize();
  return 0;
}
