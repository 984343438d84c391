#include "collector/signal_chain.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "collector/handler/forward_signal.h"

namespace omprof {

namespace {

// Serializes writers of the program's actions; never destroyed.
std::mutex& writers() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::atomic<int> g_signo{0};            // 0 until omprof's profiling handler is installed
std::atomic<bool> g_bus_shared{false};  // omprof's SIGBUS handler is installed

// The program's action for `signo` if omprof shares that signal now, else nullptr.
handler::ProgramAction* shared_action(int signo) {
  if (signo <= 0) return nullptr;
  if (signo == g_signo.load() || (signo == SIGBUS && g_bus_shared.load()))
    return handler::program_action(signo);
  return nullptr;
}

bool install(int signo, void (*fn)(int, siginfo_t*, void*), int extra_flags) {
  struct sigaction act {
  }, old{};
  act.sa_sigaction = fn;
  act.sa_flags = SA_SIGINFO | extra_flags;
  sigemptyset(&act.sa_mask);
  if (handler::real_sigaction(signo, &act, &old) != 0) return false;
  handler::program_action(signo)->set(old);
  return true;
}

}  // namespace

bool install_profiling_handler(int signo, void (*fn)(int, siginfo_t*, void*)) {
  std::lock_guard<std::mutex> lock(writers());
  handler::set_profiling_signal(signo);
  if (!install(signo, fn, SA_RESTART)) return false;
  g_signo.store(signo);
  return true;
}

bool install_bus_error_handler(void (*fn)(int, siginfo_t*, void*)) {
  std::lock_guard<std::mutex> lock(writers());
  if (g_bus_shared.load()) return true;
  if (!install(SIGBUS, fn, 0)) return false;
  g_bus_shared.store(true);
  return true;
}

}  // namespace omprof

// Interposed: the program's view of the shared signals' dispositions.
extern "C" __attribute__((visibility("default"))) int sigaction(int signo,
                                                                const struct sigaction* act,
                                                                struct sigaction* old) {
  using namespace omprof;
  handler::ProgramAction* shared = shared_action(signo);
  if (!shared) return handler::real_sigaction(signo, act, old);
  std::lock_guard<std::mutex> lock(writers());
  if (old) *old = shared->get();
  if (act) shared->set(*act);
  return 0;
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int signo, sighandler_t fn) {
  using namespace omprof;
  handler::ProgramAction* shared = shared_action(signo);
  if (!shared) {
    using SignalFn = sighandler_t (*)(int, sighandler_t);
    static SignalFn real = reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, "signal"));
    return real(signo, fn);
  }
  std::lock_guard<std::mutex> lock(writers());
  sighandler_t previous = shared->get().sa_handler;
  struct sigaction act {};
  act.sa_handler = fn;
  act.sa_flags = SA_RESTART;  // BSD semantics, as glibc's signal()
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, signo);
  shared->set(act);
  return previous;
}
