// Symbolization of this test's own functions, including an inlined one.
#include "unwind/symbolizer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "collector/modules.h"
#include "unwind/plt.h"

namespace {

volatile int sink;

extern "C" __attribute__((noinline)) int known_function(int x) {
  sink = x;  // KNOWN_LINE
  return x + 1;
}

__attribute__((always_inline)) inline void inlined_helper() {
  sink = 7;
}

__attribute__((noinline)) void calls_inlined() {
  inlined_helper();
  sink = 8;
}

__attribute__((always_inline)) inline void inner_inline() {
  sink = 9;
}
__attribute__((always_inline)) inline void middle_inline() {
  inner_inline();
  sink = 10;
}
__attribute__((noinline)) void calls_two_levels() {
  middle_inline();
  sink = 11;
}

int line_of(const char* file, const char* marker) {
  FILE* f = std::fopen(file, "r");
  char buf[512];
  for (int line = 1; f && std::fgets(buf, sizeof buf, f); ++line)
    if (std::strstr(buf, marker) && !std::strstr(buf, "line_of")) {
      std::fclose(f);
      return line;
    }
  if (f) std::fclose(f);
  return -1;
}

TEST(Symbolizer, KnownFunctionFileAndLine) {
  omprof::refresh_modules();
  omprof::unwind::Symbolizer sym(omprof::recorded_modules());
  // An address inside known_function (its first bytes are the prologue; the store follows).
  auto r = sym.lookup(reinterpret_cast<uint64_t>(&known_function) + 4);
  ASSERT_GE(r.module, 0);
  ASSERT_FALSE(r.frames.empty());
  EXPECT_EQ(r.frames.back().function, "known_function");
  EXPECT_NE(r.frames.back().file.find("symbolizer_test.cc"), std::string::npos);
  int line = r.frames.back().line;
  EXPECT_GE(line, line_of(__FILE__, "int known_function(int x)"));
  EXPECT_LE(line, line_of(__FILE__, "KNOWN_LINE") + 1);
}

TEST(Symbolizer, InlineFramesComeFirst) {
  omprof::refresh_modules();
  omprof::unwind::Symbolizer sym(omprof::recorded_modules());
  bool saw_inline = false;
  const uint64_t start = reinterpret_cast<uint64_t>(&calls_inlined);
  for (uint64_t off = 0; off < 32 && !saw_inline; ++off) {
    auto r = sym.lookup(start + off);
    if (r.frames.size() == 2) {
      // Inlined functions without a DWARF linkage name keep their plain name.
      EXPECT_NE(r.frames[0].function.find("inlined_helper"), std::string::npos);
      EXPECT_EQ(r.frames[1].function, "(anonymous namespace)::calls_inlined()");
      saw_inline = true;
    }
  }
  EXPECT_TRUE(saw_inline);
}

TEST(Symbolizer, TwoLevelInlineChainKeepsTheMiddleFrame) {
  omprof::refresh_modules();
  omprof::unwind::Symbolizer sym(omprof::recorded_modules());
  bool saw = false;
  const uint64_t start = reinterpret_cast<uint64_t>(&calls_two_levels);
  for (uint64_t off = 0; off < 48 && !saw; ++off) {
    auto r = sym.lookup(start + off);
    if (r.frames.size() == 3) {
      EXPECT_NE(r.frames[0].function.find("inner_inline"), std::string::npos);
      EXPECT_NE(r.frames[1].function.find("middle_inline"), std::string::npos);
      EXPECT_NE(r.frames[2].function.find("calls_two_levels"), std::string::npos);
      // Each caller's line is the call site in it.
      EXPECT_EQ(r.frames[1].line, line_of(__FILE__, "  inner_inline();"));
      EXPECT_EQ(r.frames[2].line, line_of(__FILE__, "  middle_inline();"));
      saw = true;
    }
  }
  EXPECT_TRUE(saw) << "no address of calls_two_levels resolved to three frames";
}

TEST(Symbolizer, DemanglesAndLeavesCNamesAlone) {
  EXPECT_EQ(omprof::unwind::demangle("_ZN3foo3barEi"), "foo::bar(int)");
  EXPECT_EQ(omprof::unwind::demangle("main"), "main");
  EXPECT_EQ(omprof::unwind::demangle("_Znotvalid"), "_Znotvalid");
}

// dlopen, dlclose, dlopen: the same file appears as several modules, at the same place or at
// another. Each resolves (issue 7, defect 2: reporting it twice crashed in libelf).
TEST(Symbolizer, OneFileLoadedSeveralTimes) {
  omprof::refresh_modules();
  std::vector<omprof::unwind::Module> modules = omprof::recorded_modules();
  const uint64_t address = reinterpret_cast<uint64_t>(&known_function) + 4;
  const omprof::unwind::Module* self = nullptr;
  for (const auto& m : modules)
    if (m.contains(address)) self = &m;
  ASSERT_NE(self, nullptr);
  omprof::unwind::Module again = *self, elsewhere = *self;
  const uint64_t shift = uint64_t(1) << 40;  // far from anything mapped
  elsewhere.load_bias += shift;
  for (auto& seg : elsewhere.segments) {
    seg.start += shift;
    seg.limit += shift;
  }
  again.unloaded = elsewhere.unloaded = true;
  modules.push_back(again);
  modules.push_back(elsewhere);
  modules.push_back(again);
  omprof::unwind::Symbolizer sym(modules);
  for (const uint64_t a : {address, address + shift}) {
    auto r = sym.lookup(a);
    ASSERT_GE(r.module, 0);
    ASSERT_FALSE(r.frames.empty());
    EXPECT_EQ(r.frames.back().function, "known_function");
    EXPECT_NE(r.frames.back().file.find("symbolizer_test.cc"), std::string::npos);
  }
}

TEST(Symbolizer, UnknownAddressHasNoModule) {
  omprof::unwind::Symbolizer sym(omprof::recorded_modules());
  EXPECT_EQ(sym.lookup(8).module, -1);
}

}  // namespace

namespace {

// glibc's libm defines one function under several names (cbrt, cbrtf64, cbrtf32x): the profile
// names it by the one users call, whichever libdw finds first; and says where in it we are.
TEST(Symbolizer, AliasesGetTheNameUsersCall) {
  void* libm = dlopen("libm.so.6", RTLD_NOW);
  ASSERT_NE(libm, nullptr);
  for (const auto& [name, alias] :
       {std::pair<const char*, const char*>{"cbrt", "cbrtf64"}, {"ldexp", "ldexpf32x"}}) {
    void* fn = dlsym(libm, name);
    ASSERT_NE(fn, nullptr) << name;
    if (dlsym(libm, alias) != fn)
      GTEST_SKIP() << alias << " is not an alias of " << name << " here";
    omprof::refresh_modules();
    omprof::unwind::Symbolizer sym(omprof::recorded_modules());
    auto r = sym.lookup(reinterpret_cast<uint64_t>(fn) + 3);
    ASSERT_FALSE(r.frames.empty()) << name;
    EXPECT_EQ(r.frames.back().function, name);
    EXPECT_EQ(r.symbol_offset, 3u) << name;
  }
  dlclose(libm);
}

}  // namespace

namespace omprof::unwind {
namespace {

// The three stub shapes of x86-64 PLTs: plain, IBT (endbr64) and MPX (bnd).
TEST(Plt, StubJumpsDecodeToTheirGotSlot) {
  const unsigned char plain[] = {0xff, 0x25, 0x10, 0x00, 0x00, 0x00, 0x68, 0, 0, 0, 0};
  EXPECT_EQ(plt_stub_slot(plain, sizeof plain, 0x1000), 0x1000u + 6 + 0x10);
  const unsigned char ibt[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xf0, 0xff, 0xff, 0xff};
  EXPECT_EQ(plt_stub_slot(ibt, sizeof ibt, 0x2000), 0x2000u + 11 - 0x10);
  const unsigned char plt0[] = {0xff, 0x35, 0x02, 0x00, 0x00, 0x00, 0xff, 0x25, 0, 0, 0, 0};
  EXPECT_EQ(plt_stub_slot(plt0, sizeof plt0, 0x3000), 0u);  // push, not a stub's jump
  EXPECT_EQ(plt_stub_slot(plain, 4, 0x1000), 0u);           // cut short
}

// This test's own executable: each stub named from the file jumps, in the running process,
// through a GOT slot that the dynamic linker bound to its named function (or, not called yet,
// back into the PLT for lazy binding).
TEST(Plt, StubsNamedFromTheFileMatchWhatTheProcessBound) {
  omprof::refresh_modules();
  const std::vector<Module> modules = omprof::recorded_modules();
  ASSERT_FALSE(modules.empty());
  const Module& exe = modules.front();
  const int fd = open(exe.path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  const std::vector<PltStub> stubs = plt_stubs(elf);
  elf_end(elf);
  close(fd);
  ASSERT_FALSE(stubs.empty()) << exe.path;
  size_t bound = 0;
  Symbolizer sym(modules);
  for (const PltStub& s : stubs) {
    const auto* code = reinterpret_cast<const unsigned char*>(s.start + exe.load_bias);
    const uint64_t slot = plt_stub_slot(code, size_t(s.end - s.start), s.start);
    ASSERT_NE(slot, 0u) << s.target;
    const uint64_t value = *reinterpret_cast<const uint64_t*>(slot + exe.load_bias);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(value), &info) && info.dli_sname &&
        reinterpret_cast<uint64_t>(info.dli_saddr) == value) {
      ++bound;
      // Aliases (memcpy and __memcpy_avx_unaligned, versioned names) share an address: compare
      // the functions the names resolve to.
      void* named = dlsym(RTLD_DEFAULT, s.target.c_str());
      if (named) {
        EXPECT_EQ(named, info.dli_saddr) << s.target << " vs " << info.dli_sname;
      }
    }
    const Symbolized r = sym.lookup(s.start + exe.load_bias + 2);
    ASSERT_EQ(r.frames.size(), 1u);
    EXPECT_EQ(r.frames[0].function, s.target + "@plt");
  }
  EXPECT_GT(bound, 0u);
}

}  // namespace
}  // namespace omprof::unwind
