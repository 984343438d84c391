#include "collector/journal_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>

#include "collector/handler/forward_signal.h"
#include "collector/handler/thread_state.h"
#include "collector/run_report.h"
#include "collector/signal_chain.h"
#include "proto/fields.h"

namespace omprof::journal {

namespace {

// The entry area: sparse, so only what is written takes space.
constexpr uint64_t kEntriesCapacity = 16ULL << 20;

// Never destroyed: threads may start, and entries be appended, after static destructors.
struct Journal {
  std::string path;
  FileHeader* header = nullptr;  // the header page and the entry area, one mapping
  uint64_t mapped_bytes = 0;
  std::mutex grow;
  std::atomic<uint64_t> file_bytes{0};  // written under `grow`; read by on_bus_error
  // Where each thread block is mapped (0: not yet), read by the bus-error handler.
  std::atomic<uintptr_t>* blocks = nullptr;
  uint32_t max_blocks = 0;
  uint64_t block_bytes = 0;
  std::atomic<uint64_t> pages_lost{0};
  std::atomic<bool> header_lost{false};  // the header page was one: the file is unreadable
  std::atomic<bool> truncated{false};    // another process truncated the file
};
Journal& state() {
  static Journal* j = new Journal;
  return *j;
}

int create_file(const std::string& dir, const std::string& stem, std::string& path,
                std::string& error) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    path = dir + "/" + stem + (attempt ? "." + std::to_string(attempt) : "") + kSuffix;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      error = "cannot create the journal '" + path + "': " + std::strerror(errno);
      return -1;
    }
  }
  error = "too many journals named '" + dir + "/" + stem + ".*" + kSuffix + "'";
  return -1;
}

// A shared view of part of the journal. Without MADV_RANDOM the first touch of a page of the
// sparse file reads ahead (zero-fills) up to hundreds of kilobytes of page cache around it: that
// was most of the collector's start-up cost (open_journal and register_current_thread, about
// 4 ms of a /bin/true run).
void* map_shared(int fd, uint64_t offset, uint64_t bytes) {
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset));
  if (mem != MAP_FAILED) madvise(mem, bytes, MADV_RANDOM);
  return mem;
}

bool inside(uintptr_t addr, uintptr_t start, uint64_t bytes) {
  return start && addr >= start && addr - start < bytes;
}

// Whether `addr` is in one of the journal's shared mappings.
bool in_journal(uintptr_t addr) {
  const Journal& j = state();
  if (inside(addr, uintptr_t(j.header), j.mapped_bytes)) return true;
  for (uint32_t i = 0; i < j.max_blocks; ++i)
    if (inside(addr, j.blocks[i].load(std::memory_order_acquire), j.block_bytes)) return true;
  return false;
}

// SIGBUS, in the signal handler. A shared file mapping faults with SIGBUS when the filesystem
// cannot back a page (a full disk or tmpfs) or the file was truncated under it: for a journal
// page, put private memory in its place and return, so that the faulting store is retried there
// and the program goes on. A page that was never written loses nothing (the memory is zero, as
// the file's hole was); the profile is written from memory at exit either way. Any other bus
// error is the program's.
void on_bus_error(int signo, siginfo_t* info, void* ucontext) {
  const auto addr = uintptr_t(info ? info->si_addr : nullptr);
  if (addr && in_journal(addr)) {
    void* page = reinterpret_cast<void*>(addr & ~(kPage - 1));
    // A file shorter than omprof made it was truncated by another process: the pages it held
    // are gone, the thread states in them too.
    struct stat st {};
    const int fd = held_descriptor();
    if (fd >= 0 && fstat(fd, &st) == 0 && uint64_t(st.st_size) < state().file_bytes) {
      state().truncated.store(true);
      handler::mark_thread_states_lost();
    }
    if (mmap(page, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED) {
      state().pages_lost.fetch_add(1, std::memory_order_relaxed);
      if (uintptr_t(page) == uintptr_t(state().header)) state().header_lost.store(true);
      return;
    }
  }
  handler::forward_to_application(signo, info, ucontext);
}

}  // namespace

uint64_t pages_not_durable() {
  return state().pages_lost.load();
}

bool journal_truncated() {
  return state().truncated.load();
}

bool journal_recoverable() {
  return state().header && !state().header_lost.load();
}

bool open_journal(const std::string& dir, const std::string& stem, const Shape& shape,
                  std::string& error) {
  Journal& j = state();
  const int created = create_file(dir, stem, j.path, error);
  if (created < 0) return false;
  // The journal's descriptor is also the one the collector holds in reserve for writing the
  // profile (run_report.h): the program sees one descriptor, as before.
  const int fd = reserve_descriptor(created);
  const uint64_t forks_offset = kPage + kEntriesCapacity;
  const uint64_t blocks_offset = forks_offset + uint64_t(kJournalForks) * sizeof(ForkCounts);
  static_assert(kJournalForks * sizeof(ForkCounts) % kPage == 0);
  void* mem = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, off_t(blocks_offset)) == 0) mem = map_shared(fd, 0, blocks_offset);
  if (mem == MAP_FAILED) {
    error = "cannot map the journal '" + j.path + "': " + std::strerror(errno);
    ::unlink(j.path.c_str());
    return false;
  }
  j.max_blocks = shape.max_threads;
  j.block_bytes = shape.block_bytes;
  j.blocks = new std::atomic<uintptr_t>[shape.max_threads]();
  j.header = static_cast<FileHeader*>(mem);
  j.mapped_bytes = blocks_offset;
  install_bus_error_handler(on_bus_error);  // before the first store to the mapping
  auto* h = new (mem) FileHeader{};
  h->version = kVersion;
  h->max_threads = shape.max_threads;
  h->entries_offset = kPage;
  h->entries_capacity = kEntriesCapacity;
  h->blocks_offset = blocks_offset;
  h->block_bytes = shape.block_bytes;
  h->forks_offset = forks_offset;
  h->forks_capacity = kJournalForks;
  h->thread_record_bytes = sizeof(ThreadRecord);
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  h->start_mono_ns = uint64_t(t.tv_sec) * 1000000000ULL + uint64_t(t.tv_nsec);
  std::memcpy(h->magic, kMagic, sizeof kMagic);  // last: a reader sees a complete header
  j.file_bytes = blocks_offset;
  return true;
}

bool journal_open() {
  return state().header != nullptr;
}

ForkCounts* fork_counts(uint64_t id) {
  FileHeader* h = state().header;
  if (!h || id == 0 || id > h->forks_capacity) return nullptr;
  void* slot = reinterpret_cast<char*>(h) + h->forks_offset + (id - 1) * sizeof(ForkCounts);
  return new (slot) ForkCounts{};  // the file's zeros, as objects
}

const std::string& journal_path() {
  return state().path;
}

FileHeader* journal_header() {
  return state().header;
}

namespace {

// Reserves space in the entry area, copies the serialized JournalEntry, then commits it.
void append_serialized(const std::string& bytes) {
  FileHeader* h = state().header;
  if (!h) return;
  const uint64_t need = entry_bytes(bytes.size());
  const uint64_t at = h->entries_reserved.fetch_add(need);
  if (at + need > h->entries_capacity || bytes.size() > UINT32_MAX) {
    h->entries_dropped.fetch_add(1);
    return;
  }
  char* base = reinterpret_cast<char*>(h) + h->entries_offset + at;
  auto* eh = reinterpret_cast<EntryHeader*>(base);
  eh->length.store(uint32_t(bytes.size()), std::memory_order_relaxed);
  std::memcpy(base + sizeof(EntryHeader), bytes.data(), bytes.size());
  eh->committed.store(1, std::memory_order_release);
}

}  // namespace

void append_entry(uint32_t field, const wire::Encoder& message) {
  if (!state().header) return;
  wire::Encoder entry;
  entry.message(field, message);
  append_serialized(entry.bytes());
}

void append_entry_u64(uint32_t field, uint64_t value) {
  if (!state().header) return;
  wire::Encoder entry;
  entry.u64(field, value);
  append_serialized(entry.bytes());
}

void* map_thread_block(uint32_t index) {
  Journal& j = state();
  FileHeader* h = j.header;
  const int fd = held_descriptor();
  if (!h || fd < 0 || index >= h->max_threads) return nullptr;
  const uint64_t offset = h->blocks_offset + uint64_t(index) * h->block_bytes;
  {
    std::lock_guard<std::mutex> lock(j.grow);
    if (offset + h->block_bytes > j.file_bytes.load()) {
      if (ftruncate(fd, off_t(offset + h->block_bytes)) != 0) return nullptr;
      j.file_bytes = offset + h->block_bytes;
    }
  }
  void* mem = map_shared(fd, offset, h->block_bytes);
  if (mem == MAP_FAILED) return nullptr;
  j.blocks[index].store(uintptr_t(mem), std::memory_order_release);
  uint32_t seen = h->threads.load();
  while (seen < index + 1 && !h->threads.compare_exchange_weak(seen, index + 1)) {
  }
  return mem;
}

void remap_private(void* block, uint32_t index) {
  const FileHeader* h = state().header;
  const int fd = held_descriptor();
  if (!h || fd < 0) return;
  const uint64_t offset = h->blocks_offset + uint64_t(index) * h->block_bytes;
  mmap(block, h->block_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, off_t(offset));
}

void detach_in_child() {
  Journal& j = state();
  const int fd = held_descriptor();
  if (!j.header) return;
  // A private copy-on-write view of the same bytes at the same address: the child keeps what
  // it sees, and its writes stay its own. No more entries are appended in the child.
  if (fd >= 0)
    mmap(j.header, j.mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
  j.header = nullptr;
  j.path.clear();
}

void remove_journal() {
  Journal& j = state();
  if (j.path.empty()) return;
  ::unlink(j.path.c_str());
}

}  // namespace omprof::journal
