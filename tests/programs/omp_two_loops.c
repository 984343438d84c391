/* Two parallel constructs in one function, built without debug information: omprof must keep
 * them apart (by code address) and label each one. The first does twice the second's work. */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

int main(void) {
  for (int step = 0; step < 30; ++step) {
#pragma omp parallel num_threads(2)
    burn(1000);
#pragma omp parallel num_threads(2)
    burn(500);
  }
  printf("two loops done\n");
  return 0;
}
