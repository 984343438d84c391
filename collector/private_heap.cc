// The collector's own heap. Every C++ allocation made by code linked into libomprof.so (its
// operator new and delete bind locally: exports.map keeps them out of the dynamic symbol
// table) comes from memory omprof maps itself, never from the program's malloc heap.
//
// Why: a tool allocation from the program's heap while the program's large arrays are live
// lands above them and pins the top of glibc's heap, so the heap is no longer trimmed and the
// program stops paying its real cost of growing and shrinking it (LULESH ran 4x faster under a
// tool that did a few mallocs). With this heap the program's allocator sees the same calls
// with and without omprof.
//
// Runs in the profiled process outside the signal handler (the handler never allocates).
// Memory: one virtual reservation (NORESERVE, pages are committed as they are touched),
// power-of-two size classes with free lists, a spinlock. Pointers that are not ours (std
// strings built inside libstdc++.so and destroyed here) go to the program's operator delete.
#include "collector/private_heap.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <new>

namespace {

constexpr uint32_t kMagic = 0x0e9a17c3;
constexpr size_t kHeader = 16;
constexpr int kMinClass = 5;  // 32-byte blocks
constexpr int kClasses = 48;

struct Header {
  uint32_t magic;
  uint32_t size_class;
  uint64_t offset;  // from the block start to this header (aligned allocations)
};
static_assert(sizeof(Header) == kHeader, "header keeps 16-byte alignment");

struct Heap {
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  bool initialized = false;
  char* base = nullptr;
  char* end = nullptr;
  char* bump = nullptr;
  void* free_list[kClasses] = {};
};
Heap g_heap;  // trivially constructed: usable before any constructor runs

void lock() {
  while (g_heap.lock.test_and_set(std::memory_order_acquire)) {
  }
  omprof::t_private_heap_held = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}
void unlock() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  omprof::t_private_heap_held = false;
  g_heap.lock.clear(std::memory_order_release);
}

// Holding the lock across fork() keeps a child from inheriting it taken.
void atfork_prepare() {
  lock();
}
void atfork_release() {
  unlock();
}

void initialize_locked() {
  g_heap.initialized = true;
  for (size_t gib : {64, 8, 1}) {
    const size_t bytes = gib << 30;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      g_heap.base = g_heap.bump = static_cast<char*>(p);
      g_heap.end = g_heap.base + bytes;
      break;
    }
  }
  pthread_atfork(atfork_prepare, atfork_release, atfork_release);
}

int class_of(size_t bytes) {
  int c = kMinClass;
  while (c < kClasses && (size_t(1) << c) < bytes) ++c;
  return c;
}

bool ours(const void* p) {
  return g_heap.base && p >= g_heap.base && p < g_heap.end;
}

// A block of 2^size_class bytes; nullptr when the reservation is exhausted.
char* take_block(int size_class) {
  lock();
  if (!g_heap.initialized) initialize_locked();
  char* block = nullptr;
  if (void* head = g_heap.free_list[size_class]) {
    block = static_cast<char*>(head);
    g_heap.free_list[size_class] = *static_cast<void**>(head);
  } else if (g_heap.base) {
    const size_t size = size_t(1) << size_class;
    if (size_t(g_heap.end - g_heap.bump) >= size) {
      block = g_heap.bump;
      g_heap.bump += size;
    }
  }
  unlock();
  return block;
}

void* allocate(size_t n, size_t align) {
  if (align < kHeader) align = kHeader;
  const size_t need = n + kHeader + (align > kHeader ? align : 0);
  if (need < n) return nullptr;  // overflow
  const int size_class = class_of(need);
  char* block = size_class < kClasses ? take_block(size_class) : nullptr;
  if (!block) return nullptr;
  uintptr_t user = reinterpret_cast<uintptr_t>(block) + kHeader;
  user = (user + align - 1) & ~(uintptr_t(align) - 1);
  auto* h = reinterpret_cast<Header*>(user - kHeader);
  h->magic = kMagic;
  h->size_class = uint32_t(size_class);
  h->offset = uint64_t(reinterpret_cast<char*>(h) - block);
  return reinterpret_cast<void*>(user);
}

void forward_to_program_delete(void* p) {
  using Delete = void (*)(void*);
  static Delete program_delete = reinterpret_cast<Delete>(dlsym(RTLD_DEFAULT, "_ZdlPv"));
  if (program_delete)
    program_delete(p);
  else
    std::free(p);
}

void release(void* p) {
  if (!p) return;
  if (!ours(p)) {
    forward_to_program_delete(p);
    return;
  }
  auto* h = reinterpret_cast<Header*>(static_cast<char*>(p) - kHeader);
  if (h->magic != kMagic || h->size_class >= uint32_t(kClasses)) return;  // never corrupt the list
  char* block = reinterpret_cast<char*>(h) - h->offset;
  h->magic = 0;
  lock();
  *reinterpret_cast<void**>(block) = g_heap.free_list[h->size_class];
  g_heap.free_list[h->size_class] = block;
  unlock();
}

void* allocate_or_throw(size_t n, size_t align) {
  if (void* p = allocate(n, align)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace omprof {
__thread bool t_private_heap_held __attribute__((tls_model("initial-exec"))) = false;
}  // namespace omprof

void* operator new(size_t n) {
  return allocate_or_throw(n, kHeader);
}
void* operator new[](size_t n) {
  return allocate_or_throw(n, kHeader);
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return allocate(n, kHeader);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return allocate(n, kHeader);
}
void* operator new(size_t n, std::align_val_t a) {
  return allocate_or_throw(n, size_t(a));
}
void* operator new[](size_t n, std::align_val_t a) {
  return allocate_or_throw(n, size_t(a));
}
void operator delete(void* p) noexcept {
  release(p);
}
void operator delete[](void* p) noexcept {
  release(p);
}
void operator delete(void* p, size_t) noexcept {
  release(p);
}
void operator delete[](void* p, size_t) noexcept {
  release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  release(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  release(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  release(p);
}
