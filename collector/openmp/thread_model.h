// The OpenMP event model's state of one thread, the same whichever runtime's adapter drives it
// (the OMPT callbacks, collector/ompt/; the libgomp wrappers, collector/libgomp/): the waits open
// on the thread, its end-of-region wait and the team barriers it met in its region
// (open_waits.h). What only one adapter needs stays in that adapter's own part
// (ompt/ompt_thread.h, libgomp/gomp_thread.h). Made on the thread's first event that needs it
// (the collector's private heap, never the program's) and kept to the end: shutdown and the
// in-job summary read other threads'. The signal handler never reads it. Process context.
#pragma once

#include "collector/openmp/open_waits.h"
#include "collector/thread_part.h"
#include "collector/thread_registry.h"

namespace omprof::openmp {

struct ThreadModel {
  OpenWaits waits;
};

// The calling thread's (`ts`), made on first use.
inline ThreadModel& model(ThreadState* ts) {
  return thread_part<ThreadModel>(ts->omp_model);
}
// Any thread's, if it has one; null otherwise.
inline ThreadModel* existing_model(const ThreadState* ts) {
  return static_cast<ThreadModel*>(ts->omp_model);
}

}  // namespace omprof::openmp
