#include "collector/handler/thread_state.h"

namespace omprof::handler {

namespace {
__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_thread = nullptr;
}  // namespace

ThreadState* current_thread() {
  return t_thread;
}

void set_current_thread(ThreadState* ts) {
  t_thread = ts;
}

}  // namespace omprof::handler
