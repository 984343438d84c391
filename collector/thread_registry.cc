#include "collector/thread_registry.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "collector/handler/sampling_state.h"
#include "collector/handler/stack_capture.h"
#include "collector/runtime.h"

namespace omprof {

namespace {

struct Registry {
  ThreadState** slots = nullptr;
  uint32_t capacity = 0;
  std::atomic<uint32_t> count{0};
  std::atomic<uint64_t> untracked{0};
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

ThreadState* register_current_thread(bool is_main) {
  const Config& cfg = runtime().config;
  Registry& reg = registry();
  if (!reg.slots) {
    // The first call comes from the library constructor, before any other thread exists.
    reg.capacity = cfg.max_threads;
    reg.slots = new ThreadState*[reg.capacity]();
  }
  uint32_t index = reg.count.fetch_add(1);
  if (index >= reg.capacity) {
    reg.count.fetch_sub(1);
    reg.untracked.fetch_add(1);
    return nullptr;
  }
  const size_t table_bytes = SampleTable::bytes_needed(cfg.max_contexts, cfg.frame_pool);
  const size_t scratch_bytes = sizeof(void*) * (cfg.max_depth + handler::kSignalSlack);
  const size_t frame_bytes = sizeof(uint64_t) * (cfg.max_depth + handler::kSignalSlack);
  const size_t waits_bytes =
      SampleTable::bytes_needed(handler::kWaitTableCapacity, handler::kWaitTableCapacity);
  const size_t total =
      sizeof(ThreadState) + 64 + table_bytes + waits_bytes + scratch_bytes + frame_bytes;
  void* mem = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    reg.slots[index] = nullptr;
    reg.untracked.fetch_add(1);
    return nullptr;
  }
  auto* ts = new (mem) ThreadState;
  char* p = static_cast<char*>(mem) + ((sizeof(ThreadState) + 63) & ~size_t(63));
  ts->table.init(p, cfg.max_contexts, cfg.frame_pool);
  p += table_bytes;
  ts->waits.init(p, handler::kWaitTableCapacity, handler::kWaitTableCapacity);
  p += waits_bytes;
  ts->scratch = reinterpret_cast<void**>(p);
  p += scratch_bytes;
  ts->frames = reinterpret_cast<uint64_t*>(p);
  ts->index = index;
  ts->tid = pid_t(syscall(SYS_gettid));
  ts->handle = pthread_self();
  ts->is_main = is_main;
  ts->rng_state = (uint64_t(ts->tid) << 32) ^ handler::monotonic_ns() ^ 0x9e3779b97f4a7c15ULL;
  if (ts->rng_state == 0) ts->rng_state = 1;
  ts->start_ns = handler::monotonic_ns() - runtime().start_mono_ns;
  if (is_main) {
    handler::warm_up_process();
    ts->trace_cache_warm = true;
  }
  handler::set_current_thread(ts);
  // Publish last, so that the writer never sees a half-built state.
  __atomic_store_n(&reg.slots[index], ts, __ATOMIC_RELEASE);
  return ts;
}

uint32_t thread_count() {
  Registry& reg = registry();
  uint32_t n = reg.count.load();
  return n < reg.capacity ? n : reg.capacity;
}

ThreadState* thread_at(uint32_t i) {
  return __atomic_load_n(&registry().slots[i], __ATOMIC_ACQUIRE);
}

uint64_t threads_untracked() {
  return registry().untracked.load();
}

}  // namespace omprof
