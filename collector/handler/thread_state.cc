#include "collector/handler/thread_state.h"

namespace omprof::handler {

namespace {
__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_thread = nullptr;
std::atomic<bool> g_states_lost{false};
}  // namespace

ThreadState* current_thread() {
  return g_states_lost.load(std::memory_order_relaxed) ? nullptr : t_thread;
}

void mark_thread_states_lost() {
  g_states_lost.store(true);
}

bool thread_states_lost() {
  return g_states_lost.load(std::memory_order_relaxed);
}

void set_current_thread(ThreadState* ts) {
  t_thread = ts;
}

}  // namespace omprof::handler
