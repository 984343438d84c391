#include "collector/handler/sampling_state.h"

namespace omprof::handler {

namespace {
// Constant-initialized and trivially destructible: no initialization guard in the handler, and
// usable after static destructors.
SamplingState g_state;
}  // namespace

SamplingState& sampling_state() {
  return g_state;
}

}  // namespace omprof::handler
