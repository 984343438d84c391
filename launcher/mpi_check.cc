#include "launcher/mpi_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <vector>

namespace omprof::launcher {

namespace {

struct ElfDynamic {
  std::string interpreter;
  std::vector<std::string> needed;
  std::string rpath, runpath;  // DT_RPATH, DT_RUNPATH (":"-separated)
};

ElfDynamic read_dynamic(const std::string& path) {
  ElfDynamic out;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  elf_version(EV_CURRENT);
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
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
      for (int k = 0; data && gelf_getdyn(data, k, &dyn); ++k) {
        if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH) continue;
        const char* text = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
        if (!text) continue;
        if (dyn.d_tag == DT_NEEDED) out.needed.push_back(text);
        if (dyn.d_tag == DT_RPATH) out.rpath = text;
        if (dyn.d_tag == DT_RUNPATH) out.runpath = text;
      }
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

// The directories of a search path, $ORIGIN expanded to `origin`; false if the path uses
// another loader token ($LIB, $PLATFORM), which only the loader expands.
bool split_search_path(const std::string& path, const std::string& origin,
                       std::vector<std::string>& dirs) {
  std::stringstream in(path);
  std::string dir;
  while (std::getline(in, dir, ':')) {
    for (const char* token : {"${ORIGIN}", "$ORIGIN"})
      for (size_t at; (at = dir.find(token)) != std::string::npos;)
        dir.replace(at, std::strlen(token), origin);
    if (dir.find('$') != std::string::npos) return false;
    dirs.push_back(dir.empty() ? "." : dir);
  }
  return true;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// Debian's library directories on x86-64, in the order its ld.so.cache ranks them.
const char* const kSystemDirs[] = {"/usr/local/lib/x86_64-linux-gnu",
                                   "/usr/local/lib",
                                   "/lib/x86_64-linux-gnu",
                                   "/usr/lib/x86_64-linux-gnu",
                                   "/lib64",
                                   "/usr/lib64",
                                   "/lib",
                                   "/usr/lib"};

// Where the loader would find `name` needed by an object with `dyn` at `object`: DT_RPATH (when
// there is no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the system's directories. "" if not
// found that way, or if a search path needs the loader.
std::string find_needed(const std::string& name, const ElfDynamic& dyn, const std::string& object,
                        const ElfDynamic& program_dyn, const std::string& program) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), R_OK) == 0 ? name : "";
  std::vector<std::string> dirs;
  bool ok = true;
  if (dyn.runpath.empty()) {
    ok &= split_search_path(dyn.rpath, directory_of(object), dirs);
    if (&dyn != &program_dyn && program_dyn.runpath.empty())
      ok &= split_search_path(program_dyn.rpath, directory_of(program), dirs);
  }
  if (const char* env = std::getenv("LD_LIBRARY_PATH"))
    ok &= split_search_path(env, directory_of(program), dirs);
  ok &= split_search_path(dyn.runpath, directory_of(object), dirs);
  if (!ok) return "";
  dirs.insert(dirs.end(), std::begin(kSystemDirs), std::end(kSystemDirs));
  for (const std::string& d : dirs) {
    const std::string candidate = d + "/" + name;
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

// The names of every library the program loads (its DT_NEEDED closure), found as the loader
// finds them for the common case, without running anything. False when a library is not found
// that way (a directory known only to /etc/ld.so.conf.d, a loader token): ask the loader then.
bool needed_closure(const std::string& program, const ElfDynamic& program_dyn,
                    std::vector<std::string>& names) {
  struct Object {
    std::string path;
    ElfDynamic dyn;
  };
  std::vector<Object> objects{{program, program_dyn}};
  std::vector<std::pair<std::string, size_t>> todo;  // a needed name, the object needing it
  for (const std::string& n : program_dyn.needed) todo.emplace_back(n, 0);
  std::vector<std::string> seen;
  while (!todo.empty()) {
    const auto [name, by] = todo.back();
    todo.pop_back();
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    if (seen.size() >= 1000) return false;
    const std::string path =
        find_needed(name, objects[by].dyn, objects[by].path, program_dyn, program);
    if (path.empty()) return false;
    seen.push_back(name);
    objects.push_back({path, read_dynamic(path)});
    for (const std::string& n : objects.back().dyn.needed) todo.emplace_back(n, objects.size() - 1);
  }
  names = seen;
  return true;
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

MpiCheck check_mpi(const std::string& program, const std::vector<std::string>& mpi_sonames) {
  MpiCheck r;
  const ElfDynamic dyn = read_dynamic(program);
  if (dyn.interpreter.empty()) return r;  // static, a script, or unreadable: no preload anyway
  auto wrapped = [&](const std::string& name) {
    for (size_t i = 0; i < mpi_sonames.size(); ++i)
      if (!mpi_sonames[i].empty() && name == mpi_sonames[i]) return int(i);
    return -1;
  };
  // Linked with mpicc: the program names the library itself, and the loader need not be asked
  // (its `--list` costs about 4 ms, on every rank's start).
  for (const std::string& n : dyn.needed)
    if ((r.loads = wrapped(n)) >= 0) return r;
  std::vector<std::string> names;
  if (!needed_closure(program, dyn, names)) {
    std::istringstream lines(loader_list(dyn.interpreter, program));
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string name;
      words >> name;  // "\tlibmpi.so.40 => /usr/lib/.../libmpi.so.40 (0x...)"
      names.push_back(name);
    }
  }
  for (const std::string& name : names) {
    if ((r.loads = wrapped(name)) >= 0) {
      r.other_library.clear();
      return r;
    }
    if (is_mpi_soname(name) && r.other_library.empty()) r.other_library = name;
  }
  return r;
}

}  // namespace omprof::launcher
