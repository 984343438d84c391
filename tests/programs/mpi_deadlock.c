/* An MPI job that deadlocks and is killed, as a job that hangs is ended by its batch system:
 * every rank works argv[1] seconds of CPU time, then waits in MPI_Recv for a message nobody
 * sends, until SIGALRM (default action: terminate) ends it argv[2] seconds after the work.
 * Prints "rank R work_s W recv_s T" before it waits, T being how long the wait will last. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static double work(double seconds) {
  const double start = cpu_s();
  double x = 1.0;
  while (cpu_s() - start < seconds)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  const double work_s = argc > 1 ? atof(argv[1]) : 0.3;
  const unsigned wait_s = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double x = work(work_s);
  printf("rank %d work_s %.3f recv_s %u (%d)\n", rank, work_s, wait_s, x > 0);
  fflush(stdout);
  alarm(wait_s);
  int never = 0;
  MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
