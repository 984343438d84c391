#include "collector/libgomp/gomp_thread.h"

namespace omprof::gomp {

GompThread& make_own(ThreadState* ts) {
  auto* g = new GompThread;
  ts->gomp_private = g;
  return *g;
}

}  // namespace omprof::gomp
