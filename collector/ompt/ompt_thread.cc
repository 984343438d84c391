#include "collector/ompt/ompt_thread.h"

namespace omprof::ompt {

OmptThread& make_own(ThreadState* ts) {
  auto* o = new OmptThread;
  ts->ompt_private = o;
  return *o;
}

}  // namespace omprof::ompt
