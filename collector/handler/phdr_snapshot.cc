#include "collector/handler/phdr_snapshot.h"

#include <dlfcn.h>

#include <atomic>
#include <new>

#include "collector/handler/reentrancy.h"

namespace omprof::handler {

namespace {

struct PhdrSnapshot {
  size_t count;
  dl_phdr_info infos[1];  // count entries
};
std::atomic<PhdrSnapshot*> g_snapshot{nullptr};

}  // namespace

void publish_phdr_snapshot(const dl_phdr_info* infos, size_t count, uint64_t exclude_base) {
  auto* snap = static_cast<PhdrSnapshot*>(::operator new(  // ordinary context
      sizeof(PhdrSnapshot) + sizeof(dl_phdr_info) * (count + 1)));
  snap->count = 0;
  for (size_t i = 0; i < count; ++i)
    if (uint64_t(infos[i].dlpi_addr) != exclude_base) snap->infos[snap->count++] = infos[i];
  g_snapshot.store(snap, std::memory_order_release);
}

}  // namespace omprof::handler

// Interposed for libunwind: inside omprof's handler, iterate the published copy (no loader
// lock, no allocation); everywhere else, the real function.
extern "C" __attribute__((visibility("default"))) int dl_iterate_phdr(
    int (*callback)(dl_phdr_info*, size_t, void*), void* data) {
  using namespace omprof::handler;
  if (current_section() == Section::kHandler) {
    PhdrSnapshot* snap = g_snapshot.load(std::memory_order_acquire);
    if (!snap) return 0;
    int rc = 0;
    for (size_t i = 0; i < snap->count && rc == 0; ++i)
      rc = callback(&snap->infos[i], sizeof(dl_phdr_info), data);
    return rc;
  }
  // Resolved before the first sample (collector/modules.cc calls this at start-up), so the
  // dlsym never runs in a handler.
  using IterateFn = int (*)(int (*)(dl_phdr_info*, size_t, void*), void*);
  static const IterateFn real =
      reinterpret_cast<IterateFn>(dlsym(RTLD_NEXT, "dl_iterate_phdr"));  // ordinary context
  return real(callback, data);
}
