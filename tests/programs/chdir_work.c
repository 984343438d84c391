/* Changes its working directory to / before working: the profile must still land in the
 * directory given to omprof run -o (relative to where omprof was started). */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  if (chdir("/") != 0) return 1;
  volatile double x = 1;
  for (long i = 0; i < 50000000; ++i) x = x * 1.0000001 + 1e-9;
  printf("chdir_work done\n");
  return 0;
}
