#include "collector/handler/reentrancy.h"

namespace omprof::handler {

namespace {
// Initial-exec TLS: a plain memory access, safe in a signal handler (no lazy allocation).
__attribute__((tls_model("initial-exec"))) thread_local volatile Section t_section =
    Section::kProgram;
}  // namespace

Section current_section() {
  return t_section;
}

SectionScope::SectionScope(Section s) : previous_(t_section) {
  t_section = s;
}

SectionScope::~SectionScope() {
  t_section = previous_;
}

}  // namespace omprof::handler
