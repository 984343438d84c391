/* argv[1] explicit regions nested in each other (each a new context node), a little work at
 * the innermost, then all ended: a region tree as deep as the program makes it. */
#include <stdio.h>
#include <stdlib.h>

#include "omprof/omprof.h"

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  for (int i = 0; i < n; ++i) omprof_region_begin("level");
  volatile double x = 1;
  for (long i = 0; i < 20000000; ++i) x = x * 1.0000001;
  for (int i = 0; i < n; ++i) omprof_region_end("level");
  printf("nested %d\n", n);
  return 0;
}
