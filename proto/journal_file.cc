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

// Copies the file's data (not its holes) into `dest`, which holds `size` zero bytes. Read, not
// mapped: a mapping of the file faults with SIGBUS where another process truncates it while it
// is read, or where a full tmpfs cannot back a hole; read() gives zeros and short counts.
bool copy_data(int fd, char* dest, uint64_t size) {
  off_t at = 0;
  while (uint64_t(at) < size) {
    const off_t data = lseek(fd, at, SEEK_DATA);
    if (data < 0) return errno == ENXIO;  // no data after `at`: the rest is a hole
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0 || uint64_t(hole) > size) hole = off_t(size);
    for (off_t p = data; p < hole;) {
      const ssize_t n = pread(fd, dest + p, size_t(hole - p), p);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n == 0;  // truncated meanwhile: what was read stands
      p += n;
    }
    at = hole;
  }
  return true;
}

}  // namespace

Mapped::Mapped(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_journal(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail_journal(path, "not a regular file");
  }
  size_ = uint64_t(st.st_size);
  mtime_ns_ = uint64_t(st.st_mtim.tv_sec) * 1000000000ULL + uint64_t(st.st_mtim.tv_nsec);
  if (size_ < sizeof(FileHeader)) {
    ::close(fd);
    fail_journal(path, size_ == 0 ? "empty journal" : "truncated journal (no header)");
  }
  void* m = mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  const bool read = m != MAP_FAILED && copy_data(fd, static_cast<char*>(m), size_);
  const int read_errno = errno;
  ::close(fd);
  if (m == MAP_FAILED) fail_journal(path, std::string("cannot map: ") + std::strerror(read_errno));
  if (!read) {
    munmap(m, size_);
    fail_journal(path, std::string("cannot read: ") + std::strerror(read_errno));
  }
  base_ = static_cast<const char*>(m);
}

Mapped::~Mapped() {
  munmap(const_cast<char*>(base_), size_);
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
