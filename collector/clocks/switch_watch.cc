#include "collector/clocks/switch_watch.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "collector/handler/sampling_state.h"

namespace omprof::clocks {

namespace {

// Bumped in a forked child: a page mapped before the fork watches the parent's thread.
std::atomic<uint32_t> g_fork_generation{0};
void count_fork() {
  g_fork_generation.fetch_add(1, std::memory_order_relaxed);
}

// Counting only: no period, no signal, no inheritance by the thread's children.
const volatile perf_event_mmap_page* map_switch_page() {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 0;
  const int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return nullptr;
  void* page = mmap(nullptr, size_t(sysconf(_SC_PAGESIZE)), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  return page == MAP_FAILED ? nullptr : static_cast<const volatile perf_event_mmap_page*>(page);
}

// The calling thread's time in the run queue, the second field of its schedstat.
bool read_run_delay(uint64_t* ns) {
  const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[96];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = 0;
  const char* p = text;
  while (*p >= '0' && *p <= '9') ++p;  // time on the CPU
  if (*p != ' ') return false;
  ++p;
  if (*p < '0' || *p > '9') return false;
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; ++p) v = v * 10 + uint64_t(*p - '0');
  *ns = v;
  return true;
}

}  // namespace

void SwitchWatch::open() {
  static const bool registered = pthread_atfork(nullptr, nullptr, count_fork) == 0;
  if (page_) munmap(const_cast<perf_event_mmap_page*>(page_), size_t(sysconf(_SC_PAGESIZE)));
  page_ = registered ? map_switch_page() : nullptr;
  generation_ = g_fork_generation.load(std::memory_order_relaxed);
  seq_ = 1;
  run_delay_seq_ = 1;            // a forked child's run queue is its own
  released_ = page_ == nullptr;  // refused: the system call from now on
}

uint64_t SwitchWatch::cpu_ns(uint64_t now_ns) {
  if (page_ && generation_ != g_fork_generation.load(std::memory_order_relaxed)) open();
  if (released_) return handler::thread_cpu_ns();
  if (!page_) {
    open();
    if (!page_) return handler::thread_cpu_ns();
  }
  const uint32_t seq = page_->lock;
  __atomic_signal_fence(__ATOMIC_ACQUIRE);
  if (seq != seq_) read_exactly(seq);
  return now_ns > off_cpu_ns_ ? now_ns - off_cpu_ns_ : 0;
}

// Switched out and in since the last exact reading (or none yet): read again. The word `seq` is
// read before the clocks, and the wall clock before the CPU clock: an interrupt taken in the
// system call after the kernel read the thread's CPU time (interrupt time is not the thread's)
// would otherwise count as time off the CPU, and this reading could be less than an estimate
// before it (by 3-39 us beside two busy processes, a few times in 6,000 readings). A switch
// between the two reads changes the word: the clocks are read again, a few times at most.
void SwitchWatch::read_exactly(uint32_t seq) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    wall_ns_ = handler::monotonic_ns();
    const uint64_t cpu = handler::thread_cpu_ns();
    off_cpu_ns_ = wall_ns_ > cpu ? wall_ns_ - cpu : 0;
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    const uint32_t after = page_ ? page_->lock : seq;
    if (after == seq) break;
    seq = after;
  }
  seq_ = seq;
  ++exact_readings_;
}

bool SwitchWatch::run_delay(uint64_t* ns) {
  if (!page_) return false;
  const uint32_t seq = page_->lock;  // before the file: a switch during the read changes it
  __atomic_signal_fence(__ATOMIC_ACQUIRE);
  if (seq != run_delay_seq_) {
    run_delay_known_ = read_run_delay(&run_delay_ns_);
    run_delay_seq_ = seq;
  }
  *ns = run_delay_ns_;
  return run_delay_known_;
}

bool SwitchWatch::switched_since(uint32_t seq) const {
  return !page_ || page_->lock != seq;
}

SwitchWatch::Mark SwitchWatch::mark() {
  const uint32_t seq = page_->lock;
  __atomic_signal_fence(__ATOMIC_ACQUIRE);
  if (seq != seq_) read_exactly(seq);
  Mark m;
  m.wall_ns = wall_ns_;
  m.cpu_ns = wall_ns_ - off_cpu_ns_;
  m.seq = seq_;
  return m;
}

bool SwitchWatch::cheap() {
  if (page_ && generation_ != g_fork_generation.load(std::memory_order_relaxed)) open();
  if (!page_ && !released_) open();
  return page_ != nullptr;
}

void SwitchWatch::release() {
  if (page_) munmap(const_cast<perf_event_mmap_page*>(page_), size_t(sysconf(_SC_PAGESIZE)));
  page_ = nullptr;
  released_ = true;
}

}  // namespace omprof::clocks
