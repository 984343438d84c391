#include "collector/signal_chain.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "collector/runtime.h"

namespace omprof {

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFn real_sigaction() {
  static SigactionFn fn = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  return fn;
}

// Two slots and an index: the handler reads a complete action while the application replaces
// it from ordinary code (writers are serialized by the mutex).
struct AppAction {
  std::mutex mu;
  struct sigaction slot[2];
  std::atomic<int> current{0};
  std::atomic<int> signo{0};  // 0 until omprof's handler is installed
};
AppAction& app() {
  static AppAction* a = new AppAction;
  return *a;
}

void set_app_action(const struct sigaction& act) {
  AppAction& a = app();
  int next = 1 - a.current.load();
  a.slot[next] = act;
  a.current.store(next, std::memory_order_release);
}

}  // namespace

bool install_profiling_handler(int signo, void (*handler)(int, siginfo_t*, void*)) {
  AppAction& a = app();
  std::lock_guard<std::mutex> lock(a.mu);
  struct sigaction act {
  }, old{};
  act.sa_sigaction = handler;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (real_sigaction()(signo, &act, &old) != 0) return false;
  set_app_action(old);
  a.signo.store(signo);
  return true;
}

void forward_to_application(int signo, siginfo_t* info, void* ucontext) {
  AppAction& a = app();
  runtime().forwarded_signals.fetch_add(1, std::memory_order_relaxed);
  const struct sigaction& act = a.slot[a.current.load(std::memory_order_acquire)];
  if (act.sa_flags & SA_SIGINFO) {
    if (!act.sa_sigaction) return;
  } else if (act.sa_handler == SIG_IGN) {
    return;
  } else if (act.sa_handler == SIG_DFL) {
    // The default action of every signal omprof accepts is to terminate: do exactly that once
    // this handler returns and the signal is unblocked.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction()(signo, &dfl, nullptr);
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
    set_app_action(dfl);
  }
}

}  // namespace omprof

// Interposed: the application's view of the profiling signal's disposition.
extern "C" __attribute__((visibility("default"))) int sigaction(int signo,
                                                                const struct sigaction* act,
                                                                struct sigaction* old) {
  using namespace omprof;
  AppAction& a = app();
  if (signo <= 0 || signo != a.signo.load()) return real_sigaction()(signo, act, old);
  std::lock_guard<std::mutex> lock(a.mu);
  if (old) *old = a.slot[a.current.load()];
  if (act) set_app_action(*act);
  return 0;
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int signo,
                                                                      sighandler_t handler) {
  using namespace omprof;
  AppAction& a = app();
  if (signo <= 0 || signo != a.signo.load()) {
    using SignalFn = sighandler_t (*)(int, sighandler_t);
    static SignalFn real = reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, "signal"));
    return real(signo, handler);
  }
  std::lock_guard<std::mutex> lock(a.mu);
  sighandler_t previous = a.slot[a.current.load()].sa_handler;
  struct sigaction act {};
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;  // BSD semantics, as glibc's signal()
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, signo);
  set_app_action(act);
  return previous;
}
