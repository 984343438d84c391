/* deep: recursion 300 frames deep with work at the leaf (truncation at --max-depth).
 * many: work at every depth from 1 to 400, so a thread sees hundreds of distinct stacks
 * (drops with a small --max-contexts). */
#include <stdio.h>
#include <string.h>

static volatile double sink;

__attribute__((noinline)) void leaf_work(long n) {
  double x = 1;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) void recurse(int depth, long n) {
  if (depth == 0) {
    leaf_work(n);
    return;
  }
  recurse(depth - 1, n);
  sink += 1; /* not a tail call */
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "many") == 0) {
    for (int rep = 0; rep < 3; ++rep)
      for (int d = 1; d <= 400; ++d) recurse(d, 300000);
  } else {
    for (int rep = 0; rep < 20; ++rep) recurse(300, 5000000);
  }
  printf("deep_stacks done\n");
  return 0;
}
