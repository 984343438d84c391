// Sharing the profiling signal with the application. omprof owns the real disposition; what the
// application installs with sigaction()/signal() is kept aside and receives every signal that
// did not come from omprof's timers (setitimer, kill, gprof), with the application's mask.
#pragma once

#include <signal.h>

namespace omprof {

// Installs `handler` for `signo`, remembering the previous action as the application's.
bool install_profiling_handler(int signo, void (*handler)(int, siginfo_t*, void*));

// Async-signal-safe: delivers a foreign signal as the application's disposition says.
void forward_to_application(int signo, siginfo_t* info, void* ucontext);

}  // namespace omprof
