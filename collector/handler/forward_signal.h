// Sharing the profiling signal with the program. omprof owns the real disposition; what the
// program installs with sigaction()/signal() is kept here (collector/signal_chain.cc updates
// it) and receives every signal that did not come from omprof's clocks (setitimer, kill,
// gprof), with the program's mask. Forwarding: async-signal-safe.
#pragma once

#include <signal.h>

#include <atomic>

namespace omprof::handler {

// Two slots and an index: the handler reads a complete action while the program replaces it
// from ordinary code (writers are serialized by collector/signal_chain.cc).
struct ProgramAction {
  struct sigaction slot[2];
  std::atomic<int> current{0};
  const struct sigaction& get() const { return slot[current.load(std::memory_order_acquire)]; }
  void set(const struct sigaction& act) {
    const int next = 1 - current.load();
    slot[next] = act;
    current.store(next, std::memory_order_release);
  }
};
ProgramAction& program_action();

// Delivers a signal that is not omprof's as the program's disposition says.
void forward_to_application(int signo, siginfo_t* info, void* ucontext);

// The real sigaction (the interposer's target).
int real_sigaction(int signo, const struct sigaction* act, struct sigaction* old);

}  // namespace omprof::handler
