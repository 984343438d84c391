/* Uses MPI only through libmpi_indirect.so (found through RUNPATH $ORIGIN). Prints the size of
 * MPI_COMM_WORLD and whether omprof's MPI wrappers are in the process. */
#include <stdio.h>
#include <string.h>

int mpi_indirect_size(int* argc, char*** argv);

static int wrappers_loaded(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  while (maps && fgets(line, sizeof line, maps))
    if (strstr(line, "libomprof_mpi.so")) found = 1;
  if (maps) fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  const int size = mpi_indirect_size(&argc, &argv);
  printf("size %d wrappers %s\n", size, wrappers_loaded() ? "loaded" : "absent");
  return 0;
}
