#include "launcher/mpi_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace omprof::launcher {

namespace {

struct ElfDynamic {
  std::string interpreter;
  std::vector<std::string> needed;
};

ElfDynamic read_dynamic(const std::string& path) {
  ElfDynamic out;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  elf_version(EV_CURRENT);
  if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
    size_t n = 0;
    if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
      for (size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, int(i), &ph) || ph.p_type != PT_INTERP) continue;
        size_t size = 0;
        const char* image = elf_rawfile(elf, &size);
        if (image && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset)
          out.interpreter.assign(image + ph.p_offset, strnlen(image + ph.p_offset, ph.p_filesz));
      }
    }
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn))) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      GElf_Dyn dyn;
      for (int k = 0; data && gelf_getdyn(data, k, &dyn); ++k)
        if (dyn.d_tag == DT_NEEDED)
          if (const char* name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val))
            out.needed.push_back(name);
    }
    elf_end(elf);
  }
  close(fd);
  return out;
}

// `interpreter --list program`'s output, or "" if it could not run.
std::string loader_list(const std::string& interpreter, const std::string& program) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return "";
  }
  if (pid == 0) {
    dup2(out[1], 1);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    execl(interpreter.c_str(), interpreter.c_str(), "--list", program.c_str(), nullptr);
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, size_t(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return text;
}

bool is_mpi_soname(const std::string& name) {
  return name.rfind("libmpi.so", 0) == 0 || name.rfind("libmpich.so", 0) == 0 ||
         name.rfind("libmpi_mpifh.so", 0) == 0 || name.rfind("libmpich", 0) == 0;
}

}  // namespace

std::string wrapped_mpi_library(const std::string& wrappers) {
  for (const std::string& n : read_dynamic(wrappers).needed)
    if (n.rfind("libmpi.so", 0) == 0 || n.rfind("libmpich.so", 0) == 0) return n;
  return "";
}

MpiCheck check_mpi(const std::string& program, const std::string& mpi_soname) {
  MpiCheck r;
  const ElfDynamic dyn = read_dynamic(program);
  if (dyn.interpreter.empty()) return r;  // static, a script, or unreadable: no preload anyway
  // Linked with mpicc: the program names the library itself, and the loader need not be asked
  // (its `--list` costs about 4 ms, on every rank's start).
  for (const std::string& n : dyn.needed)
    if (!mpi_soname.empty() && n == mpi_soname) {
      r.loads_mpi = true;
      return r;
    }
  std::istringstream lines(loader_list(dyn.interpreter, program));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;  // "\tlibmpi.so.40 => /usr/lib/.../libmpi.so.40 (0x...)"
    if (!mpi_soname.empty() && name == mpi_soname)
      r.loads_mpi = true;
    else if (is_mpi_soname(name) && r.other_library.empty())
      r.other_library = name;
  }
  if (r.loads_mpi) r.other_library.clear();
  return r;
}

}  // namespace omprof::launcher
