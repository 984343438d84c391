// Names for the PLT stubs of an ELF file: a sample whose leaf is in a stub is on its way into
// another library's function (`__kmpc_omp_task_alloc@plt`), and has no symbol of its own. Read
// from the file (sections and relocations), never from the process, so that the viewer names
// them as the collector would.
#pragma once

#include <gelf.h>

#include <cstdint>
#include <string>
#include <vector>

namespace omprof::unwind {

struct PltStub {
  uint64_t start = 0, end = 0;  // link-time addresses
  std::string target;           // the function it jumps to, as its relocation names it
};

// Every stub of `.plt`, `.plt.sec` and `.plt.got` whose code is `[endbr64] [bnd] jmp
// *disp32(%rip)` through a GOT slot that a JUMP_SLOT or GLOB_DAT relocation names. Sorted by
// address. Lazy-binding stubs of `.plt` whose jump is in `.plt.sec` (IBT) and the first entry
// (PLT0) have no target and are left out.
std::vector<PltStub> plt_stubs(Elf* elf);

// The stub holding `address` (link-time), or nullptr.
const PltStub* plt_stub_at(const std::vector<PltStub>& stubs, uint64_t address);

// Decodes one stub's jump at `code` (at link-time address `at`, `n` bytes readable): the GOT
// slot it jumps through, or 0.
uint64_t plt_stub_slot(const unsigned char* code, size_t n, uint64_t at);

}  // namespace omprof::unwind
