/* LULESH's memory pattern: every time step allocates a dozen ~1.7 MB arrays in serial code,
 * fills them in parallel loops at 30 distinct parallel constructs, and frees them. glibc serves
 * such arrays from the top of its heap and trims the heap when they are freed, so the program's
 * cost includes growing and shrinking the heap every step; a tool that allocates from the same
 * heap while the arrays are live pins its top and removes that cost. Usage: omp_heap_steps
 * STEPS. Prints a checksum (the same with and without a profiler). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N_ARRAYS 12
#define N (8 * 27000)

/* One distinct parallel construct per k; the trailing declaration takes the semicolon. */
#define FILL(k)                                                                                   \
  static void fill_##k(double* a, double v) {                                                     \
    _Pragma("omp parallel for schedule(static)") for (int i = 0; i < N; ++i) a[i] = v + i * 1e-6; \
  }                                                                                               \
  typedef int fill_##k##_defined
FILL(0);
FILL(1);
FILL(2);
FILL(3);
FILL(4);
FILL(5);
FILL(6);
FILL(7);
FILL(8);
FILL(9);
FILL(10);
FILL(11);
FILL(12);
FILL(13);
FILL(14);
FILL(15);
FILL(16);
FILL(17);
FILL(18);
FILL(19);
FILL(20);
FILL(21);
FILL(22);
FILL(23);
FILL(24);
FILL(25);
FILL(26);
FILL(27);
FILL(28);
FILL(29);

typedef void (*fill_fn)(double*, double);
static const fill_fn fills[30] = {
    fill_0,  fill_1,  fill_2,  fill_3,  fill_4,  fill_5,  fill_6,  fill_7,  fill_8,  fill_9,
    fill_10, fill_11, fill_12, fill_13, fill_14, fill_15, fill_16, fill_17, fill_18, fill_19,
    fill_20, fill_21, fill_22, fill_23, fill_24, fill_25, fill_26, fill_27, fill_28, fill_29};

int main(int argc, char** argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 40;
  double sum = 0;
  for (int s = 0; s < steps; ++s) {
    double* a[N_ARRAYS];
    for (int k = 0; k < N_ARRAYS; ++k) a[k] = malloc(N * sizeof(double));
    for (int c = 0; c < 30; ++c) fills[c](a[c % N_ARRAYS], s + c);
    for (int k = 0; k < N_ARRAYS; ++k) sum += a[k][k * 1000];
    for (int k = N_ARRAYS; k-- > 0;) free(a[k]);
  }
  printf("checksum %.6f\n", sum);
  return 0;
}
