#include "unwind/plt.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace omprof::unwind {

namespace {

// GOT slot -> the symbol its relocation binds there (JUMP_SLOT for lazy and BIND_NOW PLTs,
// GLOB_DAT for `.plt.got`).
std::unordered_map<uint64_t, std::string> relocated_slots(Elf* elf) {
  std::unordered_map<uint64_t, std::string> slots;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA || shdr.sh_entsize == 0) continue;
    Elf_Scn* symtab = elf_getscn(elf, shdr.sh_link);
    GElf_Shdr symtab_shdr;
    Elf_Data* rela = elf_getdata(scn, nullptr);
    Elf_Data* syms = symtab ? elf_getdata(symtab, nullptr) : nullptr;
    if (!rela || !syms || !gelf_getshdr(symtab, &symtab_shdr)) continue;
    const size_t n = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Rela r;
      if (!gelf_getrela(rela, int(i), &r)) break;
      const auto type = GELF_R_TYPE(r.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      GElf_Sym sym;
      if (!gelf_getsym(syms, int(GELF_R_SYM(r.r_info)), &sym)) continue;
      const char* name = elf_strptr(elf, symtab_shdr.sh_link, sym.st_name);
      if (name && *name) slots.emplace(r.r_offset, name);
    }
  }
  return slots;
}

bool is_plt_section(const char* name) {
  return name && (std::strcmp(name, ".plt") == 0 || std::strcmp(name, ".plt.sec") == 0 ||
                  std::strcmp(name, ".plt.got") == 0);
}

}  // namespace

uint64_t plt_stub_slot(const unsigned char* code, size_t n, uint64_t at) {
  size_t i = 0;
  if (n >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa)
    i = 4;                                                            // endbr64
  if (i < n && code[i] == 0xf2) ++i;                                  // bnd
  if (i + 6 > n || code[i] != 0xff || code[i + 1] != 0x25) return 0;  // jmp *disp32(%rip)
  int32_t disp;
  std::memcpy(&disp, code + i + 2, 4);
  return at + i + 6 + uint64_t(int64_t(disp));
}

std::vector<PltStub> plt_stubs(Elf* elf) {
  std::vector<PltStub> stubs;
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return stubs;
  std::unordered_map<uint64_t, std::string> slots;
  bool slots_read = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
        !is_plt_section(elf_strptr(elf, shstrndx, shdr.sh_name)))
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    if (!slots_read) {
      slots = relocated_slots(elf);
      slots_read = true;
    }
    const uint64_t entry = shdr.sh_entsize ? shdr.sh_entsize : 16;
    const auto* code = static_cast<const unsigned char*>(data->d_buf);
    for (uint64_t off = 0; off + entry <= data->d_size; off += entry) {
      const uint64_t at = shdr.sh_addr + off;
      auto it = slots.find(plt_stub_slot(code + off, size_t(entry), at));
      if (it != slots.end()) stubs.push_back({at, at + entry, it->second});
    }
  }
  std::sort(stubs.begin(), stubs.end(),
            [](const PltStub& a, const PltStub& b) { return a.start < b.start; });
  return stubs;
}

const PltStub* plt_stub_at(const std::vector<PltStub>& stubs, uint64_t address) {
  auto it = std::upper_bound(stubs.begin(), stubs.end(), address,
                             [](uint64_t a, const PltStub& s) { return a < s.start; });
  if (it == stubs.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

}  // namespace omprof::unwind
