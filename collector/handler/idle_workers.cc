#include "collector/handler/idle_workers.h"

#include <atomic>

namespace omprof::handler {

namespace {
// Written when a worker starts or ends (rare), read by the main thread's handler.
std::atomic<uint32_t> g_omp_workers{0};
}  // namespace

void count_omp_worker(ThreadState* ts) {
  if (!ts || ts->omp_process.counted_worker || ts->is_main) return;
  ts->omp_process.counted_worker = true;
  g_omp_workers.fetch_add(1, std::memory_order_relaxed);
}

void uncount_omp_worker(ThreadState* ts) {
  if (!ts || !ts->omp_process.counted_worker) return;
  ts->omp_process.counted_worker = false;
  g_omp_workers.fetch_sub(1, std::memory_order_relaxed);
}

uint64_t idle_blame_ns(const ThreadState* ts, uint64_t weight_ns) {
  if (!ts->is_main || ts->omp.fork_depth != 0) return 0;
  return weight_ns * g_omp_workers.load(std::memory_order_relaxed);
}

}  // namespace omprof::handler
