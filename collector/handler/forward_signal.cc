#include "collector/handler/forward_signal.h"

#include <dlfcn.h>
#include <pthread.h>

#include "collector/handler/sampling_state.h"

namespace omprof::handler {

namespace {
using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
// Resolved when the handler is installed (ordinary context), before any signal.
SigactionFn g_real_sigaction = nullptr;
// Constant-initialized and trivially destructible: usable before constructors and after
// static destructors, and no initialization guard in the handler.
ProgramAction g_profiling_action, g_bus_action;
std::atomic<int> g_profiling_signal{0};
}  // namespace

ProgramAction* program_action(int signo) {
  if (signo > 0 && signo == g_profiling_signal.load(std::memory_order_relaxed))
    return &g_profiling_action;
  return signo == SIGBUS ? &g_bus_action : nullptr;
}

void set_profiling_signal(int signo) {
  g_profiling_signal.store(signo);
}

int real_sigaction(int signo, const struct sigaction* act, struct sigaction* old) {
  if (!g_real_sigaction)  // first call: installing the handler, in ordinary context
    g_real_sigaction =
        reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));  // ordinary context
  return g_real_sigaction(signo, act, old);
}

void forward_to_application(int signo, siginfo_t* info, void* ucontext) {
  sampling_state().forwarded_signals.fetch_add(1, std::memory_order_relaxed);
  ProgramAction* shared = program_action(signo);
  if (!shared) return;  // not a signal omprof shares: never delivered to omprof's handlers
  ProgramAction& action = *shared;
  const struct sigaction& act = action.get();
  if (act.sa_flags & SA_SIGINFO) {
    if (!act.sa_sigaction) return;
  } else if (act.sa_handler == SIG_IGN) {
    return;
  } else if (act.sa_handler == SIG_DFL) {
    // The default action of every signal omprof accepts is to terminate: do exactly that once
    // this handler returns and the signal is unblocked.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction(signo, &dfl, nullptr);
    raise(signo);
    return;
  }
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &act.sa_mask, &old);
  if (act.sa_flags & SA_SIGINFO)
    act.sa_sigaction(signo, info, ucontext);
  else
    act.sa_handler(signo);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (act.sa_flags & SA_RESETHAND) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    action.set(dfl);
  }
}

}  // namespace omprof::handler
