/* Prints what the loader variables are, then starts a child that says whether omprof's
 * collector is loaded into it. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const char* preload = getenv("LD_PRELOAD");
  printf("LD_PRELOAD=%s\n", preload ? preload : "(unset)");
  fflush(stdout);
  return system("grep -c libomprof /proc/self/maps || true") == 0 ? 0 : 1;
}
