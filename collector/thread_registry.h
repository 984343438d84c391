// The registry of sampled threads: each thread's state (handler/thread_state.h) is made when the
// thread starts and kept until the profile is written, so threads that exited early keep their
// samples. Ordinary context.
#pragma once

#include <cstdint>

#include "collector/handler/thread_state.h"

namespace omprof {

using handler::current_thread;
using handler::kStackTruncated;
using handler::kStackUnwindFailed;
using handler::SampleContext;
using handler::SampleEntry;
using handler::SampleTable;
using handler::ThreadState;

// Allocates and registers state for the calling thread: one block of the journal
// (journal_writer.h), or anonymous memory without a journal; nullptr if the registry is full
// (counted) or memory could not be mapped.
ThreadState* register_current_thread(bool is_main);
// The size of one thread's block (a multiple of the page size), for the journal's header.
uint64_t thread_block_bytes();
// In the child of fork(): every block and the journal become private copies.
void detach_threads_in_child();

uint32_t thread_count();
ThreadState* thread_at(uint32_t i);
uint64_t threads_untracked();
// The threads the process had when the collector started, besides the one starting it (counted
// once, from /proc/self/task; kept in the journal's header too).
void count_threads_before_start();
uint32_t threads_before_start();

}  // namespace omprof
