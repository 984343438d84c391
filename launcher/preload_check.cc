#include "launcher/preload_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

namespace omprof::launcher {

namespace {

// Whether the ELF file has a program interpreter (the dynamic loader); false if unreadable.
bool has_interpreter(const std::string& path, bool& is_elf) {
  is_elf = false;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  bool interp = false;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    size_t n = 0;
    if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
      is_elf = true;
      for (size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_INTERP) interp = true;
      }
    }
    elf_end(elf);
  }
  close(fd);
  return interp;
}

}  // namespace

std::string why_preload_is_ignored(const std::string& program) {
  bool is_elf = false;
  const bool interp = has_interpreter(program, is_elf);
  if (!is_elf) return "";
  if (!interp) return "is statically linked (no dynamic loader, so nothing can be preloaded)";
  struct stat st {};
  if (stat(program.c_str(), &st) != 0) return "";
  // Secure-execution mode: the program runs with other ids than its caller's.
  if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
    return "is set-user-ID: the loader ignores LD_PRELOAD for it";
  if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
    return "is set-group-ID: the loader ignores LD_PRELOAD for it";
  return "";
}

}  // namespace omprof::launcher
