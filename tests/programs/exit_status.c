/* Prints deterministic output, then exits with argv[1] or, with "term", kills itself. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char** argv) {
  volatile double x = 0;
  for (long i = 0; i < 20000000; ++i) x += i * 0.5;
  for (int i = 0; i < 100; ++i) printf("line %d: %d\n", i, i * i);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "term") == 0) raise(SIGTERM);
  return argc > 1 ? atoi(argv[1]) : 0;
}
