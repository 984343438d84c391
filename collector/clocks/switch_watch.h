// A thread's CPU clock read without a system call while the thread has not been switched out.
//
// The libgomp wrappers time waits by their time off the CPU: wall time minus the thread's CPU
// time, two CLOCK_THREAD_CPUTIME_ID reads a wait, a system call each (0.2 to 0.9 us on a VM).
// While a thread runs, its CPU time advances with the wall clock, so wall minus CPU stays
// constant; it changes only across a context switch. A perf_event task clock of the thread,
// counting only (no sampling, no signal), maps a page whose sequence word (`lock`) the kernel
// bumps at every switch of the thread in and out (checked on kernel 6.18: voluntary sleeps and
// preemptions alike). So: one exact reading of wall minus CPU, kept with the word's value, holds
// until the word changes; the next reading after a switch is exact again.
//
// One page per thread that uses it, mapped by the thread itself on first use (again in a forked
// child) (the descriptor is closed at
// once: the mapping keeps the counter alive, so the program cannot close it or reuse its
// number), unmapped at the thread's end. Where perf_event_open is refused, every reading is the
// system call, as before. A hypervisor's stolen time or interrupt time inside one stint on the
// CPU counts as CPU time here (the kernel's thread clock leaves them out).
// Process context, on the calling thread only; never in the signal handler.
#pragma once

#include <cstdint>

struct perf_event_mmap_page;

namespace omprof::clocks {

class SwitchWatch {
 public:
  // The calling thread's CPU time at `now_ns` (handler::monotonic_ns(), just read).
  uint64_t cpu_ns(uint64_t now_ns);
  // The thread ends: the page goes, and later readings make the system call.
  void release();
  // Readings made with a system call (the first, and after each switch), for tests and benches.
  uint64_t exact_readings() const { return exact_readings_; }
  bool watching() const { return page_ != nullptr; }
  // Whether readings are cheap on this thread (maps its page on first use).
  bool cheap();
  // The last exact reading, brought up to date (a system call only after a switch): its wall
  // time, the thread's CPU time then, and the switch word. Only while cheap(). A wait timed from
  // it needs no clock read at its start, and none at its end if switched_since is false: it
  // spent no time off the CPU.
  struct Mark {
    uint64_t wall_ns = 0;
    uint64_t cpu_ns = 0;
    uint32_t seq = 0;
  };
  Mark mark();
  bool switched_since(uint32_t seq) const;
  // The thread's time in the run queue now (preempted, or woken and waiting for a CPU:
  // /proc/thread-self/schedstat, three system calls), read at most once between two switches
  // (it changes only at one); false if it cannot be read or the thread is not watched.
  bool run_delay(uint64_t* ns);

 private:
  void open();
  void read_exactly(uint32_t seq);

  const volatile perf_event_mmap_page* page_ = nullptr;
  uint32_t generation_ = 0;  // forks counted when it was mapped (a child's thread is another)
  uint32_t seq_ = 1;         // the page's word at the last exact reading (odd: none yet)
  uint64_t off_cpu_ns_ = 0;  // wall minus CPU time then
  uint64_t wall_ns_ = 0;     // its wall time
  uint64_t run_delay_ns_ = 0;
  uint32_t run_delay_seq_ = 1;  // the switch word when it was read (odd: never)
  bool run_delay_known_ = false;
  bool released_ = false;
  uint64_t exact_readings_ = 0;
};

}  // namespace omprof::clocks
