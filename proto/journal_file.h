// A journal file read safely (proto/journal.h is its layout): its bytes copied into memory,
// every offset checked against its size before use, the header checked before anything else is
// trusted. For journal_reader.cc; throws ProfileError ("<path>: <why>").
#pragma once

#include <cstdint>
#include <string>

#include "proto/journal.h"

namespace omprof::format {

// Throws ProfileError("<path>: <what>"): every error about a journal file reads so.
[[noreturn]] void fail_journal(const std::string& path, const std::string& what);

// The journal's bytes in memory (holes stay untouched zero pages); every offset is checked
// against its size before use.
class Mapped {
 public:
  explicit Mapped(const std::string& path);  // throws ProfileError
  ~Mapped();
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;

  bool holds(uint64_t offset, uint64_t bytes) const {
    return offset <= size_ && bytes <= size_ - offset;
  }
  // A T at `offset`, if the file holds it there, aligned (offsets come from the file).
  template <typename T>
  const T* at(uint64_t offset) const {
    return holds(offset, sizeof(T)) && offset % alignof(T) == 0
               ? reinterpret_cast<const T*>(base_ + offset)
               : nullptr;
  }
  const char* bytes(uint64_t offset) const { return base_ + offset; }
  uint64_t size() const { return size_; }
  uint64_t mtime_ns() const { return mtime_ns_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const char* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t mtime_ns_ = 0;
};

// A bool stored in the file, read as its byte: a damaged file's 8 is not a valid bool.
bool flag(const bool& stored);
// The thread blocks to read: those handed out, bounded by what the file can hold (a damaged
// count of 4 billion threads is not 4 billion look-ups).
uint32_t blocks_to_read(const Mapped& m, const journal::FileHeader& h);
// The header, once its magic, version and layout are checked.
const journal::FileHeader& checked_header(const Mapped& m);

}  // namespace omprof::format
