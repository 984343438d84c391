#define _GNU_SOURCE
/* A program that opens perf events of its own, as a program instrumented with its own counters
 * (or PAPI on a machine with a PMU) does: (1) it counts its page faults while it first-touches
 * PAGES pages and prints whether the count is the pages touched (within 5%: its stack and
 * libc fault too); (2) it samples its own CPU time every 2 ms with a task-clock event whose
 * overflows signal SIGNAL (SIGPROF by default: the signal omprof samples with) and counts them
 * in its own handler over 0.4 s of CPU time. Usage: own_counters [PAGES=4096] [SIGNAL=prof|io] */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

static volatile sig_atomic_t overflows;
static int sampling_fd = -1;

static void on_overflow(int sig, siginfo_t* info, void* uc) {
  (void)sig;
  (void)uc;
  if (info->si_code >= POLL_IN && info->si_code <= POLL_HUP && info->si_fd == sampling_fd)
    overflows++;
}

static int open_own(uint32_t config, uint64_t period) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.sample_period = period;
  a.wakeup_events = period ? 1 : 0;
  a.disabled = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void count_faults(long pages) {
  const int fd = open_own(PERF_COUNT_SW_PAGE_FAULTS, 0);
  if (fd < 0) {
    printf("own page-fault counter: not permitted\n");
    return;
  }
  char* p =
      mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  for (long i = 0; i < pages; ++i) p[i * 4096] = 1;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t n = 0;
  if (read(fd, &n, sizeof n) != sizeof n) n = 0;
  close(fd);
  munmap(p, (size_t)pages * 4096);
  printf("own page faults counted right: %d\n",
         n >= (uint64_t)pages && n <= (uint64_t)(pages + pages / 20));
}

static void sample_cpu(int signo) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_overflow;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(signo, &sa, NULL);
  sampling_fd = open_own(PERF_COUNT_SW_TASK_CLOCK, 2000000);
  if (sampling_fd < 0) return;
  struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
  fcntl(sampling_fd, F_SETFL, O_ASYNC);
  fcntl(sampling_fd, F_SETSIG, signo);
  fcntl(sampling_fd, F_SETOWN_EX, &owner);
  ioctl(sampling_fd, PERF_EVENT_IOC_ENABLE, 0);
  spin_for(CLOCK_THREAD_CPUTIME_ID, 0.4);
  ioctl(sampling_fd, PERF_EVENT_IOC_DISABLE, 0);
  close(sampling_fd);
  /* 200 overflows expected; the count is printed apart so that a test can compare runs. */
  fprintf(stderr, "own overflows: %d\n", (int)overflows);
}

int main(int argc, char** argv) {
  const long pages = argc > 1 ? atol(argv[1]) : 4096;
  const int signo = argc > 2 && strcmp(argv[2], "io") == 0 ? SIGIO : SIGPROF;
  count_faults(pages);
  sample_cpu(signo);
  printf("own_counters done\n");
  return 0;
}
