// Counter events per thread (`omprof run --counters`, proto/counter_events.h): one perf_event
// group per thread, counting from the thread's start, read by the signal handler at each sample
// (handler/counter_read.h: the deltas since the thread's previous sample go to the sample) and
// once more at the thread's end (its totals). Process context, on the thread itself at its
// start; at its end or at shutdown from any thread.
#pragma once

#include "collector/thread_registry.h"

namespace omprof {

// Opens the configured events on the calling thread `ts` (none configured: nothing). A thread
// whose events cannot be opened (descriptors exhausted, say) keeps the reason
// (ThreadRecord::counter_errno) and is sampled without counters.
void open_thread_counters(ThreadState* ts);
// Reads the thread's final totals and closes its events (a descriptor the program closed and
// may have reused is left alone).
void close_thread_counters(ThreadState* ts);

}  // namespace omprof
