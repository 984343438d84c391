#include "collector/handler/thread_state.h"

namespace omprof::handler {

__thread ThreadState* t_current_thread __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<bool> g_thread_states_lost{false};

void mark_thread_states_lost() {
  g_thread_states_lost.store(true);
}

void set_current_thread(ThreadState* ts) {
  t_current_thread = ts;
}

}  // namespace omprof::handler
