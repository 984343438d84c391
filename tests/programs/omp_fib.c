/* Recursive tasks far too fine for the runtime: every fib(n) call creates two tasks (deferred
 * for n > cutoff, 18 unless the second argument says, undeferred if(0) below) and waits for them.
 * Arguments: n, cutoff, "task" (the first call in a task of its own) or "untied" (the same with
 * untied tasks).
 * Prints the same arithmetic without OpenMP and with tasks, each timed by the program itself. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cutoff = 18;

static long fib(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a) if (n > cutoff)
  a = fib(n - 1);
#pragma omp task shared(b) if (n > cutoff)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

/* The same with untied tasks (BOTS fib's), which libomp 14 starts with a misnamed switch. */
static long fib_untied(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task untied shared(a) if (n > cutoff)
  a = fib_untied(n - 1);
#pragma omp task untied shared(b) if (n > cutoff)
  b = fib_untied(n - 2);
#pragma omp taskwait
  return a + b;
}

/* The same calls without OpenMP. Not inlined into main, and timed around an asm statement that
 * uses its result: gcc knows it has no side effects and otherwise moves the call past the
 * clock read (it then measured 40 us for fib(32)). */
__attribute__((noinline)) static long fib_serial(int n) {
  if (n < 2) return n;
  const long a = fib_serial(n - 1);
  const long b = fib_serial(n - 2);
  return a + b;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 30;
  if (argc > 2) cutoff = atoi(argv[2]);
  /* A third argument "task": the first call runs in a task too, so every taskwait is a task's;
   * "untied": the same with untied tasks. */
  const int untied = argc > 3 && argv[3][0] == 'u';
  const int root_in_task = untied || (argc > 3 && argv[3][0] == 't');
  double t0 = omp_get_wtime();
  const long serial = fib_serial(n);
  __asm__ volatile("" : : "r"(serial) : "memory");
  const double serial_s = omp_get_wtime() - t0;
  long tasks = 0;
  t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  {
    if (untied) {
#pragma omp task untied shared(tasks)
      tasks = fib_untied(n);
    } else if (root_in_task) {
#pragma omp task shared(tasks)
      tasks = fib(n);
    } else {
      tasks = fib(n);
    }
  }
  const double tasks_s = omp_get_wtime() - t0;
  printf("fib(%d) = %ld %s serial_s=%.6f tasks_s=%.6f\n", n, tasks,
         tasks == serial ? "ok" : "WRONG", serial_s, tasks_s);
  return tasks == serial ? 0 : 1;
}
