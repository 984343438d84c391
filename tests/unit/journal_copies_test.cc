// A reader's copies of the journals it reads again (proto/journal_file.h JournalCopies): the same
// pages are reused, and what the file no longer holds reads as zero, as a fresh copy would.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "proto/journal_file.h"

namespace omprof::format {
namespace {

TEST(ZeroDroppedRanges, ZeroesWhatWasDataBeforeAndIsNotNow) {
  std::vector<char> b(100, 'x');
  // Before: [10, 40) and [60, 90). Now: [20, 30), [35, 65).
  zero_dropped_ranges(b.data(), {{10, 40}, {60, 90}}, {{20, 30}, {35, 65}});
  for (size_t i = 0; i < b.size(); ++i) {
    const bool dropped = (i >= 10 && i < 20) || (i >= 30 && i < 35) || (i >= 65 && i < 90);
    EXPECT_EQ(b[i], dropped ? 0 : 'x') << i;
  }
}

TEST(ZeroDroppedRanges, NothingBeforeOrAllStillThere) {
  std::vector<char> b(50, 'x');
  zero_dropped_ranges(b.data(), {}, {{0, 50}});
  zero_dropped_ranges(b.data(), {{5, 15}, {20, 30}}, {{0, 50}});
  for (char c : b) EXPECT_EQ(c, 'x');
  zero_dropped_ranges(b.data(), {{5, 15}, {20, 30}}, {});
  for (size_t i = 0; i < b.size(); ++i)
    EXPECT_EQ(b[i], (i >= 5 && i < 15) || (i >= 20 && i < 30) ? 0 : 'x') << i;
}

class JournalCopiesTest : public testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/omprof_copies_XXXXXX";
    const int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    path_ = name;
    ASSERT_EQ(ftruncate(fd, kSize), 0);
    close(fd);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write_at(off_t at, char c, size_t n = 4096) {
    const int fd = open(path_.c_str(), O_WRONLY);
    const std::string bytes(n, c);
    ASSERT_EQ(pwrite(fd, bytes.data(), n, at), ssize_t(n));
    close(fd);
  }
  // Makes [at, at + n) a hole again; false where the file system cannot.
  bool punch(off_t at, off_t n = 4096) {
    const int fd = open(path_.c_str(), O_WRONLY);
    const bool ok = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, n) == 0;
    close(fd);
    return ok;
  }
  static constexpr off_t kSize = 1 << 20;
  std::string path_;
};

TEST_F(JournalCopiesTest, ASecondReadReusesThePagesAndSeesTheFileAsItIsNow) {
  write_at(0, 'a');
  write_at(256 << 10, 'b');
  JournalCopies copies;
  const char* first = nullptr;
  {
    const Mapped m(path_, &copies);
    first = m.bytes(0);
    EXPECT_EQ(m.bytes(0)[100], 'a');
    EXPECT_EQ(m.bytes(256 << 10)[100], 'b');
  }
  EXPECT_EQ(copies.held(), 1u);
  if (!punch(256 << 10)) GTEST_SKIP() << "no hole punching on this file system";
  write_at(512 << 10, 'c');
  write_at(0, 'd', 10);
  {
    const Mapped m(path_, &copies);
    EXPECT_EQ(m.bytes(0), first);  // the same pages
    EXPECT_EQ(m.bytes(0)[5], 'd');
    EXPECT_EQ(m.bytes(0)[100], 'a');
    for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(m.bytes(256 << 10)[i], 0) << i;
    EXPECT_EQ(m.bytes(512 << 10)[100], 'c');
  }
}

TEST_F(JournalCopiesTest, AnotherFileAtThePathGetsAFreshCopy) {
  write_at(8192, 'a');
  JournalCopies copies;
  { const Mapped m(path_, &copies); }
  // A new file renamed over the journal's path (another process's journal of the same name).
  const std::string other = path_ + ".new";
  const int fd = open(other.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kSize), 0);
  ASSERT_EQ(pwrite(fd, "zz", 2, 16384), 2);
  close(fd);
  ASSERT_EQ(rename(other.c_str(), path_.c_str()), 0);
  const Mapped m(path_, &copies);
  EXPECT_EQ(m.bytes(8192)[0], 0);
  EXPECT_EQ(m.bytes(16384)[1], 'z');
}

TEST_F(JournalCopiesTest, CopiesNotReadSinceTheLastRoundAreFreed) {
  JournalCopies copies;
  { const Mapped m(path_, &copies); }
  copies.forget_unused();  // read in this round: kept
  EXPECT_EQ(copies.held(), 1u);
  copies.forget_unused();  // not read since: freed
  EXPECT_EQ(copies.held(), 0u);
}

}  // namespace
}  // namespace omprof::format
