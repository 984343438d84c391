/* Page faults by design (issue 41): each OpenMP thread first-touches, in every round, 3N fresh
 * pages in touch_three() and N in touch_one(), each in its own function, then gives the pages
 * back (MADV_DONTNEED: the next round's touches fault again). Transparent huge pages are off for
 * the buffers, so one touch is one fault. Prints the pages each thread touched, counted in the
 * program: `thread T touched P pages` and `pages_three=A pages_one=B faults_three=C faults_one=D`
 * in all. Each touch runs in an explicit region of its own ("three", "one") when omprof's region
 * API is there (weak references: the program runs alone as well). C and D are every fault of the
 * threads from just before each region's begin to just after its end, as the kernel counts them
 * (getrusage): the pages touched, plus what anything else faulted meanwhile (a profiler's first
 * touches, code paged back in under memory pressure).
 *   omp_page_faults [N] [ROUNDS]     (defaults 2048 and 40) */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "omp_common.h"

enum { kPage = 4096 };

int omprof_region_begin(const char* name) __attribute__((weak));
int omprof_region_end(const char* name) __attribute__((weak));
static void region_begin(const char* name) {
  if (omprof_region_begin) omprof_region_begin(name);
}
static void region_end(const char* name) {
  if (omprof_region_end) omprof_region_end(name);
}

/* Different stores, so that no compiler folds the two into one function. */
TEST_NOINLINE static long touch_three(volatile char* p, long pages) {
  for (long i = 0; i < pages; ++i) p[i * kPage] = 3;
  return pages;
}

TEST_NOINLINE static long touch_one(volatile char* p, long pages) {
  for (long i = 0; i < pages; ++i) p[i * kPage] = 1;
  return pages;
}

/* The calling thread's page faults so far, minor and major. */
static long thread_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt + u.ru_majflt;
}

static char* buffer(long pages) {
  char* p =
      mmap(NULL, (size_t)pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  madvise(p, (size_t)pages * kPage, MADV_NOHUGEPAGE);
  return p;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 2048;
  const int rounds = argc > 2 ? atoi(argv[2]) : 40;
  long all_three = 0, all_one = 0, faults_three = 0, faults_one = 0;
#pragma omp parallel reduction(+ : all_three, all_one, faults_three, faults_one)
  {
    char* three = buffer(3 * n);
    char* one = buffer(n);
    long touched = 0;
    for (int r = 0; r < rounds; ++r) {
      long before = thread_faults();
      region_begin("three");
      const long a = touch_three(three, 3 * n);
      region_end("three");
      faults_three += thread_faults() - before;
      before = thread_faults();
      region_begin("one");
      const long b = touch_one(one, n);
      region_end("one");
      faults_one += thread_faults() - before;
      all_three += a;
      all_one += b;
      touched += a + b;
      madvise(three, (size_t)(3 * n) * kPage, MADV_DONTNEED);
      madvise(one, (size_t)n * kPage, MADV_DONTNEED);
    }
#pragma omp critical
    printf("thread %d touched %ld pages\n", omp_get_thread_num(), touched);
  }
  printf("pages_three=%ld pages_one=%ld faults_three=%ld faults_one=%ld\n", all_three, all_one,
         faults_three, faults_one);
  return 0;
}
