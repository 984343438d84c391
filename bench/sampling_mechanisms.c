/* What one sampling signal costs the program on this machine, by mechanism (issue 40: where a
 * sample's time goes on a VM). Two threads spin for a fixed wall time and count their loop's
 * rounds; each variant delivers SIGPROF to each thread at `period_ns` of its CPU time:
 *   0 none
 *   1 task clock, one-shot, a new random period and a refresh per sample (omprof's task clock:
 *     two ioctls, the timer reprogrammed)
 *   2 task clock, one-shot, refresh only (a fixed period: one ioctl)
 *   3 task clock, continuous (no system call in the handler)
 *   4 POSIX thread CPU-time timer, re-armed with a random value per sample (omprof's cpu clock)
 * The handler does nothing else. Prints "MODE ROUNDS SIGNALS". bench/sampling_mechanisms.sh
 * runs the variants interleaved and turns the lost rounds into microseconds per signal.
 * Usage: bench_sampling_mechanisms MODE [PERIOD_NS=1000000 [SECONDS=2]] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { kNone, kTaskPeriodRefresh, kTaskRefresh, kTaskContinuous, kCpuTimer };

static int mode;
static long period_ns = 1000000;
static double seconds = 2;
static __thread int event_fd = -1;
static __thread timer_t cpu_timer;
static __thread uint64_t rng = 88172645463325252ull;
static __thread long signals;

static uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A period drawn uniformly from [period/2, 3 period/2): its mean is the period. */
static uint64_t random_period(void) {
  return (uint64_t)period_ns / 2 + next_random() % (uint64_t)period_ns;
}

static void on_signal(int sig, siginfo_t* info, void* uc) {
  (void)sig, (void)info, (void)uc;
  ++signals;
  if (mode == kTaskPeriodRefresh) {
    uint64_t p = random_period();
    ioctl(event_fd, PERF_EVENT_IOC_PERIOD, &p);
    ioctl(event_fd, PERF_EVENT_IOC_REFRESH, 1);
  } else if (mode == kTaskRefresh) {
    ioctl(event_fd, PERF_EVENT_IOC_REFRESH, 1);
  } else if (mode == kCpuTimer) {
    struct itimerspec its = {{0, 0}, {0, (long)random_period()}};
    timer_settime(cpu_timer, 0, &its, NULL);
  }
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void open_task_clock(void) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = (uint64_t)period_ns;
  a.disabled = 1;
  a.wakeup_events = 1;
  event_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (event_fd < 0) {
    perror("bench_sampling_mechanisms: perf_event_open");
    exit(2);
  }
  struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
  fcntl(event_fd, F_SETOWN_EX, &owner);
  fcntl(event_fd, F_SETSIG, SIGPROF);
  fcntl(event_fd, F_SETFL, O_ASYNC | O_NONBLOCK);
  if (mode == kTaskContinuous)
    ioctl(event_fd, PERF_EVENT_IOC_ENABLE, 0);
  else
    ioctl(event_fd, PERF_EVENT_IOC_REFRESH, 1);
}

static void start_cpu_timer(void) {
  struct sigevent se;
  memset(&se, 0, sizeof se);
  se.sigev_notify = SIGEV_THREAD_ID;
  se.sigev_signo = SIGPROF;
  se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &cpu_timer) != 0) {
    perror("bench_sampling_mechanisms: timer_create");
    exit(2);
  }
  struct itimerspec its = {{0, 0}, {0, period_ns}};
  timer_settime(cpu_timer, 0, &its, NULL);
}

struct result {
  long rounds, signals;
};

static void* spin(void* arg) {
  struct result* out = arg;
  if (mode >= kTaskPeriodRefresh && mode <= kTaskContinuous) open_task_clock();
  if (mode == kCpuTimer) start_cpu_timer();
  const double end = now_s() + seconds;
  volatile double x = 1;
  long rounds = 0;
  for (;;) {
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
    if ((++rounds & 15) == 0 && now_s() > end) break;
  }
  /* Stop the signals before the counts are read. */
  if (event_fd >= 0) close(event_fd);
  if (mode == kCpuTimer) timer_delete(cpu_timer);
  out->rounds = rounds;
  out->signals = signals;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_sampling_mechanisms MODE [PERIOD_NS [SECONDS]]\n");
    return 2;
  }
  mode = atoi(argv[1]);
  if (argc > 2) period_ns = atol(argv[2]);
  if (argc > 3) seconds = atof(argv[3]);
  if (mode < kNone || mode > kCpuTimer || period_ns < 10000 || period_ns >= 1000000000 ||
      seconds <= 0) {
    fprintf(stderr, "bench_sampling_mechanisms: MODE 0-4, PERIOD_NS 10000-999999999\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  pthread_t threads[2];
  struct result results[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, spin, &results[i]);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("%d %ld %ld\n", mode, results[0].rounds + results[1].rounds,
         results[0].signals + results[1].signals);
  return 0;
}
