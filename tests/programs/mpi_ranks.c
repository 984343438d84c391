/* Ground truth for MPI: rank r computes (r+1) units of CPU time per step in compute(), then all
 * ranks meet in MPI_Allreduce in exchange(); optionally each rank runs a team of OpenMP threads
 * whose thread t computes (t+1) units inside the step (an OpenMP-imbalanced region), and even
 * ranks alone run an explicit region "io". Each rank measures, on its main thread's wall clock,
 * its time computing and its time inside MPI, and prints them, for the test to compare with the
 * profile. Around MPI_Allreduce it also reads the thread CPU clock (the CPU time MPI used).
 * With "abort" as the fourth argument, the last rank ends the job with MPI_Abort(3) instead of
 * MPI_Finalize (the in-job summary must then say why it is missing).
 * With MPI_RANKS_API_SUMMARY=PATH in the environment, every rank calls omprof's collective
 * summary before MPI_Finalize, strict (the region trees differ when there are 2 ranks or more)
 * and union (rank 0 writes PATH), and prints the two statuses.
 * With "balanced" as the fourth argument, every rank computes so that its computing and io
 * together take the average rank's (the fix `omprof advise` suggests for the imbalance).
 * With "chatty" in the fourth argument, exchange() reduces 25,000 values a step, one MPI_Allreduce
 * each (latency-bound: the design `omprof advise` must find at its call site); with
 * "chatty-fixed", in one MPI_Allreduce of 25,000 values (the fix). "balanced,chatty" has both.
 * With "slowafter", the last rank computes three times its share from step STEPS/2 on; every
 * rank prints when that step began (slow_from_s) and when MPI_Init returned (init_end_s), in
 * wall seconds from main's start. Every rank prints its wall time in MPI in the second half of
 * the steps and those steps' wall time (late_mpi_s, late_s).
 * Usage: mpi_ranks STEPS UNIT_MS [OMP_THREADS [abort|balanced|chatty|chatty-fixed,...]] */
#include <mpi.h>
#include <omp.h>
#include <omprof/omprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spin.h"

static double wall(void) {
  return clock_seconds(CLOCK_MONOTONIC);
}

/* Team time not spent computing, bounded two ways: from each thread's end of work to the
 * region's end (the join), and also from the region's start to each thread's start of work
 * (waking the team, which omprof may count as fork overhead or as the worker's idle time). */
static double join_wait_s, team_wait_s;

/* Returns the wall time the threads spent computing, summed. */
__attribute__((noinline)) double compute(double seconds, int threads) {
  if (threads <= 1) {
    const double t0 = wall();
    spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
    return wall() - t0;
  }
  /* Thread t computes (t+1)/threads of the rank's share: the team waits at the join. */
  double busy = 0, ends = 0, start = wall();
#pragma omp parallel num_threads(threads) reduction(+ : busy, ends)
  {
    const double t0 = wall();
    spin_for(CLOCK_THREAD_CPUTIME_ID, seconds * (omp_get_thread_num() + 1) / threads);
    const double t1 = wall();
    busy += t1 - t0;
    ends += t1;
  }
  const double end = wall();
  join_wait_s += threads * end - ends;
  team_wait_s += threads * (end - start) - busy;
  return busy;
}

enum { kChattyValues = 25000 };
static int chatty, chatty_fixed;

/* The sum of x over the ranks (the last of kChattyValues sums, when chatty). */
__attribute__((noinline)) double exchange(double x) {
  static double in[kChattyValues], out[kChattyValues];
  double sum = 0;
  if (chatty_fixed) {
    for (int i = 0; i < kChattyValues; ++i) in[i] = x;
    MPI_Allreduce(in, out, kChattyValues, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out[kChattyValues - 1];
  }
  for (int i = 0; i < (chatty ? kChattyValues : 1); ++i)
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

__attribute__((noinline)) void io(double seconds) {
  omprof_region_begin("io");
  spin_for(CLOCK_THREAD_CPUTIME_ID, seconds);
  omprof_region_end("io");
}

int main(int argc, char** argv) {
  const double main_start = wall();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const double init_end_s = wall() - main_start;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? atoi(argv[1]) : 50;
  const double unit = (argc > 2 ? atof(argv[2]) : 4) * 1e-3;
  const int threads = argc > 3 ? atoi(argv[3]) : 1;
  double busy_s = 0, mpi_s = 0, mpi_cpu_s = 0, io_s = 0, step_s = 0, check = 0;
  double late_mpi_s = 0, late_s = 0; /* the second half of the steps */
  /* Balanced: each rank's computing plus io is the average over ranks of (r+1) units plus io
   * (a quarter unit on even ranks). */
  const char* options = argc > 4 ? argv[4] : "";
  const int balanced = strstr(options, "balanced") != NULL;
  chatty_fixed = strstr(options, "chatty-fixed") != NULL;
  chatty = !chatty_fixed && strstr(options, "chatty") != NULL;
  const int slow_after = strstr(options, "slowafter") != NULL;
  double slow_from_s = -1;
  double average = 0;
  for (int r = 0; r < size; ++r) average += unit * (r + 1) + (r % 2 == 0 ? unit / 4 : 0);
  average /= size;
  const double share = balanced ? average - (rank % 2 == 0 ? unit / 4 : 0) : unit * (rank + 1);
  const double start = wall();
  for (int s = 0; s < steps; ++s) {
    omprof_region_begin("step");
    double t0 = wall();
    if (slow_after && s == steps / 2) slow_from_s = wall() - main_start;
    const int slow = slow_after && s >= steps / 2 && rank == size - 1;
    busy_s += compute(slow ? 3 * share : share, threads);
    double t1 = wall();
    if (rank % 2 == 0) io(unit / 4);
    double t2 = wall();
    const double c2 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    check += exchange(1.0);
    mpi_cpu_s += clock_seconds(CLOCK_THREAD_CPUTIME_ID) - c2;
    double t3 = wall();
    omprof_region_end("step");
    io_s += t2 - t1;
    mpi_s += t3 - t2;
    step_s += t3 - t0;
    if (s >= steps / 2) late_mpi_s += t3 - t2, late_s += t3 - t0;
  }
  const double elapsed = wall() - start;
  /* Inside the "step" region, in thread-seconds: work is the computing and io, MPI wait the
   * main thread's MPI_Allreduce, OpenMP wait the team's waiting (workers idle between regions
   * are in no region). */
  printf(
      "rank %d step_work %.6f step_mpi %.6f step_mpi_cpu %.6f join_wait %.6f team_wait %.6f "
      "step_s %.6f elapsed_s %.6f check %.0f slow_from_s %.6f init_end_s %.6f late_mpi_s %.6f "
      "late_s %.6f\n",
      rank, busy_s + io_s, mpi_s, mpi_cpu_s, join_wait_s, team_wait_s, step_s, elapsed, check,
      slow_from_s, init_end_s, late_mpi_s, late_s);
  fflush(stdout);
  const char* api_summary = getenv("MPI_RANKS_API_SUMMARY");
  if (api_summary) {
    const int strict = omprof_write_mpi_summary(api_summary, 1, 0);
    const int any = omprof_write_mpi_summary(api_summary, 0, 0);
    printf("rank %d strict_status %d union_status %d\n", rank, strict, any);
    fflush(stdout);
  }
  if (strcmp(options, "abort") == 0) {
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has printed */
    if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 3);
    for (;;) pause(); /* the other ranks are ended by the abort */
  }
  MPI_Finalize();
  return 0;
}
