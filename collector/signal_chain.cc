#include "collector/signal_chain.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "collector/handler/forward_signal.h"

namespace omprof {

namespace {

// Serializes writers of the program's action; never destroyed.
std::mutex& writers() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::atomic<int> g_signo{0};  // 0 until omprof's handler is installed

}  // namespace

bool install_profiling_handler(int signo, void (*fn)(int, siginfo_t*, void*)) {
  std::lock_guard<std::mutex> lock(writers());
  struct sigaction act {
  }, old{};
  act.sa_sigaction = fn;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (handler::real_sigaction(signo, &act, &old) != 0) return false;
  handler::program_action().set(old);
  g_signo.store(signo);
  return true;
}

}  // namespace omprof

// Interposed: the program's view of the profiling signal's disposition.
extern "C" __attribute__((visibility("default"))) int sigaction(int signo,
                                                                const struct sigaction* act,
                                                                struct sigaction* old) {
  using namespace omprof;
  if (signo <= 0 || signo != g_signo.load()) return handler::real_sigaction(signo, act, old);
  std::lock_guard<std::mutex> lock(writers());
  if (old) *old = handler::program_action().get();
  if (act) handler::program_action().set(*act);
  return 0;
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int signo, sighandler_t fn) {
  using namespace omprof;
  if (signo <= 0 || signo != g_signo.load()) {
    using SignalFn = sighandler_t (*)(int, sighandler_t);
    static SignalFn real = reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, "signal"));
    return real(signo, fn);
  }
  std::lock_guard<std::mutex> lock(writers());
  sighandler_t previous = handler::program_action().get().sa_handler;
  struct sigaction act {};
  act.sa_handler = fn;
  act.sa_flags = SA_RESTART;  // BSD semantics, as glibc's signal()
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, signo);
  handler::program_action().set(act);
  return previous;
}
