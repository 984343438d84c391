/* Loads argv[1] with dlopen, spends CPU time in its dl_work, unloads it (argv[2] times, 0.3 s
 * of dl_work in all), then works in main_work: the library's samples must still be symbolized
 * at the end of the run, whichever load they came from. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void main_work(void) {
  double x = 1;
  for (long i = 0; i < 60000000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int loads = argc > 2 ? atoi(argv[2]) : 1;
  for (int i = 0; i < loads; ++i) {
    void* h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    void (*work)(double) = (void (*)(double))dlsym(h, "dl_work");
    work(0.3 / loads);
    dlclose(h);
  }
  main_work();
  printf("dlopen_user done\n");
  return 0;
}
