// What omprof's OMPT callbacks keep per thread for themselves: its fork and join bookkeeping in
// progress, the tasks it runs (running_tasks.h) and the last region value it read (the waits
// open on the thread are the event model's: openmp/thread_model.h). The signal handler never
// reads any of it (what it reads is published in handler/omp_published.h: the task origin and
// frame, the taskwaits), so it lives apart, as the libgomp wrappers' does
// (collector/libgomp/gomp_thread.h): ThreadState holds only an opaque pointer to it, made on the
// thread's first OMPT callback that needs it (the collector's private heap, never the program's)
// and kept to the end. Process context.
#pragma once

#include <omp-tools.h>

#include <cstdint>

#include "collector/ompt/exact_waits.h"
#include "collector/thread_part.h"
#include "collector/thread_registry.h"

namespace omprof::ompt {

// An explicit task running on a thread, possibly suspended under tasks it runs inline (if(0)
// ones) or in its waits (running_tasks.h): its creation record and OMPT frame, as for
// handler/omp_published.h publish_running_task. Undeferred tasks take their creator's.
struct RunningTask {
  const void* task = nullptr;
  uint32_t origin = 0;
  const ompt_frame_t* frame = nullptr;
};
constexpr int kMaxRunningTasks = 64;

struct OmptThread {
  // Fork/join bookkeeping in progress (exact_waits.h, record_overhead): since when, and the
  // construct it is the bookkeeping of.
  uint64_t overhead_since_ns = 0;
  uint64_t overhead_codeptr = 0;
  // The construct this thread forked last (its return address - 1), which names the region-end
  // barrier it is master of; the region instance whose end barrier it left last, and when: its
  // join bookkeeping starts there (ompt_tool.cc, implicit task end).
  uint64_t forked_construct = 0;
  uint32_t join_left_instance = 0;
  uint64_t join_left_ns = 0;
  // The last region whose parallel_data value this thread wrote or read fresh, and that value
  // (ompt_tool.cc, value_of): read again from libomp's team structure, it cost a cache miss.
  const void* known_parallel = nullptr;
  uint64_t known_parallel_value = 0;
  RunningTask running_tasks[kMaxRunningTasks];  // innermost at running_depth - 1
  int running_depth = 0;  // may exceed kMaxRunningTasks (deeper ones are not kept)
};

// The calling thread's (`ts`) part, made on first use. Never in the signal handler.
inline OmptThread& own(ThreadState* ts) {
  return thread_part<OmptThread>(ts->ompt_private);
}
// Any thread's, if it has one (shutdown reads the others'); null otherwise.
inline OmptThread* existing(const ThreadState* ts) {
  return static_cast<OmptThread*>(ts->ompt_private);
}

}  // namespace omprof::ompt
