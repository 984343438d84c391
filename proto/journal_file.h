// A journal file read safely (proto/journal.h is its layout): its bytes copied into memory,
// every offset checked against its size before use, the header checked before anything else is
// trusted. For journal_reader.cc; throws ProfileError ("<path>: <why>").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "proto/journal.h"

namespace omprof::format {

// Throws ProfileError("<path>: <what>"): every error about a journal file reads so.
[[noreturn]] void fail_journal(const std::string& path, const std::string& what);

// The byte ranges [first, second) of a journal that held data when it was copied.
using DataRanges = std::vector<std::pair<uint64_t, uint64_t>>;

// A reader's copies of the journals it reads again and again (`omprof top`): each journal's
// bytes stay in memory from one read to the next, which copies into the pages already there.
// A fresh copy faults in every page it fills, and unmapping it flushes them: on a VM, that was
// a quarter of the CPU a snapshot of a running LULESH took, more than the copying itself.
// Memory: each journal's data (about 1.3 MB for a 2-thread LULESH), held until forget_unused.
class JournalCopies {
 public:
  JournalCopies() = default;
  ~JournalCopies();
  JournalCopies(const JournalCopies&) = delete;
  JournalCopies& operator=(const JournalCopies&) = delete;
  // Frees the copies no read used since the last call (journals of processes that ended).
  void forget_unused();
  size_t held() const { return copies_.size(); }

 private:
  friend class Mapped;
  struct Copy {
    dev_t dev = 0;
    ino_t ino = 0;
    uint64_t size = 0;
    char* base = nullptr;
    DataRanges data;  // what the last read copied: the rest of the pages are zero
    bool used = false;
  };
  std::map<std::string, Copy> copies_;  // by path
};

// The journal's bytes in memory (holes stay untouched zero pages); every offset is checked
// against its size before use.
class Mapped {
 public:
  // `copies`: where the bytes come from and go back to when the same journal is read again
  // (null: a copy of its own, freed with it).
  explicit Mapped(const std::string& path, JournalCopies* copies = nullptr);  // throws ProfileError
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
  JournalCopies* copies_ = nullptr;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  DataRanges data_;
};

// Zeroes in `base` the bytes of `before` that are not in `now` (both sorted and disjoint): a
// reused copy's pages that held data the journal no longer has (truncated, or cut short while
// it was read).
void zero_dropped_ranges(char* base, const DataRanges& before, const DataRanges& now);

// A bool stored in the file, read as its byte: a damaged file's 8 is not a valid bool.
bool flag(const bool& stored);
// The thread blocks to read: those handed out, bounded by what the file can hold (a damaged
// count of 4 billion threads is not 4 billion look-ups).
uint32_t blocks_to_read(const Mapped& m, const journal::FileHeader& h);
// The header, once its magic, version and layout are checked.
const journal::FileHeader& checked_header(const Mapped& m);

}  // namespace omprof::format
