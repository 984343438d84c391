// Sharing signals with the program: the profiling signal, and SIGBUS while the journal is mapped
// (collector/journal_writer.cc). omprof owns the real disposition; what the program installs
// with sigaction()/signal() is kept here (collector/signal_chain.cc updates it) and receives
// every signal that was not omprof's (setitimer, kill, gprof; a bus error outside the journal),
// with the program's mask. Forwarding: async-signal-safe.
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
// The program's action for `signo`, for the signals omprof shares (nullptr for the others).
ProgramAction* program_action(int signo);
// The signals omprof shares: the profiling signal once its handler is installed, SIGBUS.
void set_profiling_signal(int signo);

// Delivers a signal that is not omprof's as the program's disposition says.
void forward_to_application(int signo, siginfo_t* info, void* ucontext);

// The real sigaction (the interposer's target).
int real_sigaction(int signo, const struct sigaction* act, struct sigaction* old);

}  // namespace omprof::handler
