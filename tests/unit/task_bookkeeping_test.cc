// The collector's two pieces of task bookkeeping that need no runtime: counting a task's
// outstanding deferred children in its ompt_data_t word, and decoding the call instruction of
// a call site into the runtime.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "collector/handler/task_children.h"
#include "collector/writer/call_targets.h"

namespace omprof {
namespace {

namespace tc = handler::task_children;

TEST(TaskChildren, CountsDeferredChildrenUntilTheyComplete) {
  alignas(8) uint64_t parent = 0, a = 0, b = 0, grandchild = 0;
  tc::created(&parent, &a);
  tc::created(&parent, &b);
  EXPECT_EQ(tc::outstanding(&parent), 2u);
  EXPECT_EQ(tc::parent_of(&a), &parent);
  tc::created(&a, &grandchild);  // a's own child: counted in a, not in parent
  EXPECT_EQ(tc::outstanding(&a), 1u);
  EXPECT_EQ(tc::outstanding(&parent), 2u);
  EXPECT_EQ(tc::parent_of(&a), &parent);  // the count leaves the link alone
  tc::completed(&grandchild);
  EXPECT_EQ(tc::outstanding(&a), 0u);
  tc::completed(&a);
  EXPECT_EQ(tc::outstanding(&parent), 1u);
  tc::completed(&a);  // reported twice: counted once
  EXPECT_EQ(tc::outstanding(&parent), 1u);
  tc::completed(&b);
  EXPECT_EQ(tc::outstanding(&parent), 0u);
  // A task never linked (undeferred, or created before omprof) changes nothing.
  alignas(8) uint64_t stray = 0;
  tc::completed(&stray);
  EXPECT_EQ(tc::outstanding(&parent), 0u);
}

TEST(TaskChildren, SaturatesInsteadOfOverflowingIntoTheLink) {
  alignas(8) uint64_t grandparent = 0, parent = 0, child = 0;
  tc::created(&grandparent, &parent);
  parent |= tc::kCountMask - 1;
  tc::created(&parent, &child);
  EXPECT_EQ(tc::outstanding(&parent), tc::kCountMask);
  alignas(8) uint64_t more = 0;
  tc::created(&parent, &more);  // saturated: neither counted nor linked
  EXPECT_EQ(tc::parent_of(&more), nullptr);
  EXPECT_EQ(tc::parent_of(&parent), &grandparent);
}

// A fake address space: bytes at addresses, unreadable elsewhere.
struct Memory {
  std::map<uint64_t, unsigned char> bytes;
  void put(uint64_t at, std::initializer_list<unsigned> b) {
    for (unsigned x : b) bytes[at++] = static_cast<unsigned char>(x);
  }
  void put64(uint64_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (8 * i));
  }
  bool read(uint64_t at, unsigned char* out, size_t n) const {
    for (size_t i = 0; i < n; ++i) {
      auto it = bytes.find(at + i);
      if (it == bytes.end()) return false;
      out[i] = it->second;
    }
    return true;
  }
};

uint64_t target(const Memory& m, uint64_t ret) {
  return writer::call_target(
      ret, [&](uint64_t a, unsigned char* o, size_t n) { return m.read(a, o, n); });
}

TEST(CallTarget, FollowsAPltStubToItsBoundGotSlot) {
  Memory m;
  // 0x135a: call 0x10c0 (rel32 = 0x10c0 - 0x135f); return address 0x135f.
  m.put(0x1359, {0x90, 0xe8, 0x61, 0xfd, 0xff, 0xff});
  // 0x10c0: jmp *0x2f82(%rip) -> slot 0x10c6 + 0x2f82 = 0x4048, bound to 0x7f0000001000.
  m.put(0x10c0, {0xff, 0x25, 0x82, 0x2f, 0x00, 0x00, 0x68, 0x09, 0x00, 0x00, 0x00});
  m.put64(0x4048, 0x7f0000001000);
  EXPECT_EQ(target(m, 0x135f), 0x7f0000001000u);
}

TEST(CallTarget, FollowsAnIbtPltStub) {
  Memory m;
  m.put(0x2000 - 6, {0x90, 0xe8, 0x00, 0x10, 0x00, 0x00});  // call 0x3000
  // endbr64; bnd jmp *0x100(%rip) -> slot 0x3000 + 4 + 7 + 0x100
  m.put(0x3000, {0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0x00, 0x01, 0x00, 0x00});
  m.put64(0x310b, 0x7f0000002000);
  EXPECT_EQ(target(m, 0x2000), 0x7f0000002000u);
}

TEST(CallTarget, ReadsTheGotForCallsWithoutPlt) {
  Memory m;
  m.put(0x2000 - 6, {0xff, 0x15, 0x10, 0x00, 0x00, 0x00});  // call *0x10(%rip)
  m.put64(0x2010, 0x7f0000003000);
  EXPECT_EQ(target(m, 0x2000), 0x7f0000003000u);
}

TEST(CallTarget, DirectCallsAndUnknownCode) {
  Memory m;
  m.put(0x2000 - 6, {0x90, 0xe8, 0x00, 0x01, 0x00, 0x00});  // call 0x2100: a function body
  m.put(0x2100, {0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90});
  EXPECT_EQ(target(m, 0x2000), 0x2100u);
  Memory other;
  other.put(0x2000 - 6, {0x90, 0x90, 0x41, 0xff, 0xd4, 0x90});  // call *%r12: not decodable
  EXPECT_EQ(target(other, 0x2000), 0u);
  EXPECT_EQ(target(Memory{}, 0x2000), 0u);  // unreadable
}

}  // namespace
}  // namespace omprof
