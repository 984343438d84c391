/* Five parallel regions of different constructs, each in its own function, repeated: a
 * dynamically scheduled loop of uneven iterations, unequal sections, a single with work beside
 * it, an ordered loop and a nest lock taken for short critical work. The program measures each
 * region's wall time (fork to join, on the master) and prints it summed over the repetitions,
 * so that a profile's thread time per region can be set against threads x wall
 * (bench/offcpu_placement.sh). Usage: omp_mixed_constructs [reps] [threads]. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* About `units` x 10 us of arithmetic (no clock read: the work is the same under any load). */
__attribute__((noinline)) static void compute(long units, double seed) {
  double x = seed + sink;
  for (long i = 0; i < units * 4000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) static void region_dynamic(void) {
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < 64; ++i) compute(40 + (i % 7) * 20, 1.0);
}

__attribute__((noinline)) static void region_sections(void) {
#pragma omp parallel sections
  {
#pragma omp section
    compute(3000, 2.0);
#pragma omp section
    compute(1500, 2.5);
#pragma omp section
    compute(800, 2.7);
  }
}

__attribute__((noinline)) static void region_single(void) {
#pragma omp parallel
  {
#pragma omp single
    compute(2000, 3.0);
    compute(600, 3.5);
  }
}

__attribute__((noinline)) static void region_ordered(void) {
#pragma omp parallel for ordered schedule(static, 1)
  for (int i = 0; i < 48; ++i) {
    compute(30, 4.0);
#pragma omp ordered
    compute(25, 4.5);
  }
}

__attribute__((noinline)) static void region_lock(omp_nest_lock_t* lock) {
#pragma omp parallel
  {
    for (int i = 0; i < 150; ++i) {
      compute(8, 5.0);
      omp_set_nest_lock(lock);
      compute(4, 5.5);
      omp_unset_nest_lock(lock);
    }
  }
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 20;
  const int threads = argc > 2 ? atoi(argv[2]) : 2;
  if (reps < 1 || threads < 1) {
    fprintf(stderr, "usage: omp_mixed_constructs [reps >= 1] [threads >= 1]\n");
    return 2;
  }
  omp_set_num_threads(threads);
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
  double wall[5] = {0};
  int line[5] = {0};
/* Times one region's call; its line is where the profile's user model puts the region. */
#define TIMED(k, call)        \
  do {                        \
    const double t = now_s(); \
    call;                     \
    wall[k] += now_s() - t;   \
    line[k] = __LINE__;       \
  } while (0)
  for (int r = 0; r < reps; ++r) {
    TIMED(0, region_dynamic());
    TIMED(1, region_sections());
    TIMED(2, region_single());
    TIMED(3, region_ordered());
    TIMED(4, region_lock(&lock));
  }
  omp_destroy_nest_lock(&lock);
  const char* names[5] = {"region_dynamic", "region_sections", "region_single", "region_ordered",
                          "region_lock"};
  for (int k = 0; k < 5; ++k) printf("wall %s %d %.6f\n", names[k], line[k], wall[k]);
  return 0;
}
