#include "collector/openmp/thread_model.h"

namespace omprof::openmp {

ThreadModel& make_model(ThreadState* ts) {
  auto* m = new ThreadModel;
  ts->omp_model = m;
  return *m;
}

}  // namespace omprof::openmp
