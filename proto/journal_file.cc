#include "proto/journal_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "proto/profile_reader.h"

namespace omprof::format {

using journal::FileHeader;
using journal::ThreadRecord;

void fail_journal(const std::string& path, const std::string& what) {
  throw ProfileError(path + ": " + what);
}

namespace {

// Copies the file's data (not its holes) into `dest`, whose bytes outside `data` are zero, and
// sets `data` to the ranges copied. Read, not mapped: a mapping of the file faults with SIGBUS
// where another process truncates it while it is read, or where a full tmpfs cannot back a
// hole; read() gives zeros and short counts.
bool copy_data(int fd, char* dest, uint64_t size, DataRanges& data) {
  data.clear();
  off_t at = 0;
  while (uint64_t(at) < size) {
    const off_t from = lseek(fd, at, SEEK_DATA);
    if (from < 0) return errno == ENXIO;  // no data after `at`: the rest is a hole
    off_t hole = lseek(fd, from, SEEK_HOLE);
    if (hole < 0 || uint64_t(hole) > size) hole = off_t(size);
    for (off_t p = from; p < hole;) {
      const ssize_t n = pread(fd, dest + p, size_t(hole - p), p);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) p += n;
      if (n > 0 && p < hole) continue;
      if (p > from) data.emplace_back(uint64_t(from), uint64_t(p));
      if (n <= 0) return n == 0;  // truncated meanwhile: what was read stands
    }
    at = hole;
  }
  return true;
}

// A zeroed private mapping of `size` bytes (null on failure, errno set).
char* zero_pages(uint64_t size) {
  void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return m == MAP_FAILED ? nullptr : static_cast<char*>(m);
}

}  // namespace

void zero_dropped_ranges(char* base, const DataRanges& before, const DataRanges& now) {
  size_t k = 0;
  for (auto [from, to] : before) {
    while (from < to) {
      while (k < now.size() && now[k].second <= from) ++k;
      if (k == now.size() || now[k].first >= to) {  // nothing of `now` in [from, to)
        std::memset(base + from, 0, to - from);
        break;
      }
      if (now[k].first > from) std::memset(base + from, 0, now[k].first - from);
      from = now[k].second;
    }
  }
}

JournalCopies::~JournalCopies() {
  for (auto& [path, c] : copies_) munmap(c.base, c.size);
}

void JournalCopies::forget_unused() {
  for (auto it = copies_.begin(); it != copies_.end();) {
    if (it->second.used) {
      (it++)->second.used = false;
      continue;
    }
    munmap(it->second.base, it->second.size);
    it = copies_.erase(it);
  }
}

Mapped::Mapped(const std::string& path, JournalCopies* copies) : path_(path), copies_(copies) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_journal(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail_journal(path, "not a regular file");
  }
  size_ = uint64_t(st.st_size);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  mtime_ns_ = uint64_t(st.st_mtim.tv_sec) * 1000000000ULL + uint64_t(st.st_mtim.tv_nsec);
  if (size_ < sizeof(FileHeader)) {
    ::close(fd);
    fail_journal(path, size_ == 0 ? "empty journal" : "truncated journal (no header)");
  }
  // The copy the last read of this journal left, if it is of the same file and size.
  char* m = nullptr;
  DataRanges before;
  if (copies_) {
    const auto kept = copies_->copies_.find(path);
    if (kept != copies_->copies_.end()) {
      JournalCopies::Copy& c = kept->second;
      if (c.dev == dev_ && c.ino == ino_ && c.size == size_)
        m = c.base, before = std::move(c.data);
      else
        munmap(c.base, c.size);
      copies_->copies_.erase(kept);
    }
  }
  if (!m) m = zero_pages(size_);
  const bool read = m && copy_data(fd, m, size_, data_);
  const int read_errno = errno;
  ::close(fd);
  if (!m) fail_journal(path, std::string("cannot map: ") + std::strerror(read_errno));
  zero_dropped_ranges(m, before, data_);
  if (!read) {
    munmap(m, size_);
    fail_journal(path, std::string("cannot read: ") + std::strerror(read_errno));
  }
  base_ = m;
}

Mapped::~Mapped() {
  char* base = const_cast<char*>(base_);
  if (!copies_) {
    munmap(base, size_);
    return;
  }
  JournalCopies::Copy& c = copies_->copies_[path_];
  if (c.base) munmap(c.base, c.size);  // another read of the same path kept its copy first
  c = {dev_, ino_, size_, base, std::move(data_), true};
}

bool flag(const bool& stored) {
  uint8_t byte = 0;
  std::memcpy(&byte, &stored, 1);
  return byte != 0;
}

uint32_t blocks_to_read(const Mapped& m, const FileHeader& h) {
  const uint64_t in_file =
      m.size() > h.blocks_offset ? (m.size() - h.blocks_offset) / h.block_bytes + 1 : 0;
  return uint32_t(std::min<uint64_t>({h.threads.load(), h.max_threads, in_file}));
}

const FileHeader& checked_header(const Mapped& m) {
  const FileHeader& h = *m.at<FileHeader>(0);
  if (std::memcmp(h.magic, journal::kMagic, sizeof journal::kMagic) != 0)
    fail_journal(m.path(), "not an omprof journal (bad magic)");
  if (h.version != journal::kVersion)
    fail_journal(m.path(), "journal version " + std::to_string(h.version) +
                               " (this reader supports " + std::to_string(journal::kVersion) + ")");
  if (h.thread_record_bytes != sizeof(ThreadRecord) || h.block_bytes % journal::kPage != 0 ||
      h.block_bytes < sizeof(ThreadRecord) || h.entries_offset < sizeof(FileHeader) ||
      h.blocks_offset % journal::kPage != 0 ||
      h.blocks_offset < h.entries_offset + h.entries_capacity)
    fail_journal(m.path(), "corrupt journal header");
  if (!m.holds(h.entries_offset, h.entries_capacity))
    fail_journal(m.path(), "truncated journal (the file ends before its entry area does)");
  return h;
}

}  // namespace omprof::format
