#include "launcher/gomp_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <set>

namespace omprof::launcher {

namespace {

// Calls fn(section, data) for each section of the given type.
template <typename Fn>
bool for_sections(const std::string& path, Elf64_Word type, Fn fn) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) {
    close(fd);
    return false;
  }
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == type) fn(elf, sh, elf_getdata(scn, nullptr));
  }
  elf_end(elf);
  close(fd);
  return true;
}

std::set<std::string> defined_versions(const std::string& lib) {
  std::set<std::string> out;
  for_sections(lib, SHT_GNU_verdef, [&](Elf* elf, const GElf_Shdr& sh, Elf_Data* data) {
    size_t off = 0;
    GElf_Verdef def;
    while (data && gelf_getverdef(data, off, &def)) {
      GElf_Verdaux aux;
      if (gelf_getverdaux(data, off + def.vd_aux, &aux))
        if (const char* n = elf_strptr(elf, sh.sh_link, aux.vda_name)) out.insert(n);
      if (!def.vd_next) break;
      off += def.vd_next;
    }
  });
  return out;
}

}  // namespace

GompCheck check_libgomp(const std::string& program, const std::string& libomp) {
  GompCheck r;
  std::set<std::string> needed;
  bool ok =
      for_sections(program, SHT_GNU_verneed, [&](Elf* elf, const GElf_Shdr& sh, Elf_Data* data) {
        size_t off = 0;
        GElf_Verneed need;
        while (data && gelf_getverneed(data, off, &need)) {
          const char* file = elf_strptr(elf, sh.sh_link, need.vn_file);
          if (file && std::strncmp(file, "libgomp.so", 10) == 0) {
            r.needs_libgomp = true;
            size_t aoff = off + need.vn_aux;
            GElf_Vernaux aux;
            for (int i = 0; i < need.vn_cnt && gelf_getvernaux(data, aoff, &aux); ++i) {
              if (const char* n = elf_strptr(elf, sh.sh_link, aux.vna_name)) needed.insert(n);
              if (!aux.vna_next) break;
              aoff += aux.vna_next;
            }
          }
          if (!need.vn_next) break;
          off += need.vn_next;
        }
      });
  // An unreadable ELF leaves the program as it is: exec reports what is wrong with it.
  if (!ok || !r.needs_libgomp) return r;
  std::set<std::string> have = defined_versions(libomp);
  for (const auto& v : needed)
    if (!have.count(v)) r.missing_versions.push_back(v);
  return r;
}

}  // namespace omprof::launcher
