// Sharing the profiling signal with the program (ordinary context): omprof installs its handler
// and interposes sigaction() and signal(), so the program sees and sets its own disposition,
// kept in handler/forward_signal.h for the handler to forward to.
#pragma once

#include <signal.h>

namespace omprof {

// Installs `handler` for `signo`, remembering the previous action as the program's.
bool install_profiling_handler(int signo, void (*handler)(int, siginfo_t*, void*));
// The same for SIGBUS (journal_writer.cc: a journal page the filesystem cannot back).
bool install_bus_error_handler(void (*handler)(int, siginfo_t*, void*));

}  // namespace omprof
