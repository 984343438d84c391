#include "collector/handler/thread_state.h"

namespace omprof::handler {

__thread ThreadState* t_current_thread __attribute__((tls_model("initial-exec"))) = nullptr;
HotFlag g_thread_states_lost;

void mark_thread_states_lost() {
  g_thread_states_lost.set();
}

void set_current_thread(ThreadState* ts) {
  t_current_thread = ts;
}

}  // namespace omprof::handler
