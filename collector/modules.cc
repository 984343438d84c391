#include "collector/modules.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "collector/handler/phdr_snapshot.h"

namespace omprof {

using unwind::Module;

namespace {

using IterateFn = int (*)(int (*)(dl_phdr_info*, size_t, void*), void*);

// Never-destroyed state: the collector may run after static destructors.
struct State {
  std::mutex mu;
  std::vector<Module>* modules = new std::vector<Module>;
  ModuleObserver observer;
};
State& state() {
  static State* s = new State;
  return *s;
}

std::atomic<void (*)()> g_quiescence_wait{nullptr};

// The loader's own dl_iterate_phdr (omprof's interposer would serve the handler's copy).
IterateFn real_iterate() {
  static IterateFn fn = reinterpret_cast<IterateFn>(dlsym(RTLD_NEXT, "dl_iterate_phdr"));
  return fn;
}

std::string read_build_id(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0)
        return unwind::hex(reinterpret_cast<const unsigned char*>(desc), nh->n_descsz);
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return "";
}

std::string exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return buf;
}

// The file mapped at `addr`, from /proc/self/maps: what the kernel opened, whatever the cwd is
// now ("" if not found).
std::string mapped_file(uint64_t addr) {
  FILE* f = std::fopen("/proc/self/maps", "re");
  if (!f) return "";
  std::string path;
  char line[4096 + 128];
  while (std::fgets(line, sizeof(line), f)) {
    unsigned long long lo = 0, hi = 0;
    int name_at = 0;
    if (std::sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &name_at) < 2) continue;
    if (addr < lo || addr >= hi || name_at == 0 || line[name_at] != '/') continue;
    path = line + name_at;
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    break;
  }
  std::fclose(f);
  return path;
}

Module describe(const dl_phdr_info* info) {
  Module m;
  m.load_bias = info->dlpi_addr;
  const char* name = info->dlpi_name;
  if (!name || !*name) {
    m.path = exe_path();
  } else if (std::strstr(name, "linux-vdso") || std::strstr(name, "linux-gate")) {
    m.path = "[vdso]";
    m.is_vdso = true;
  } else {
    m.path = name;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    m.segments.push_back(
        {info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz, ph.p_offset});
  }
  // dlopen("lib/x.so") names a module relative to the cwd of that moment; the viewer (and the
  // program, after a chdir) would look elsewhere.
  if (!m.is_vdso && !m.path.empty() && m.path[0] != '/' && !m.segments.empty()) {
    std::string absolute = mapped_file(m.segments.front().start);
    if (!absolute.empty()) m.path = absolute;
  }
  m.build_id = read_build_id(info);
  return m;
}

}  // namespace

void set_module_observer(ModuleObserver o) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.observer = o;
}

void set_handler_quiescence_wait(void (*wait)()) {
  g_quiescence_wait.store(wait);
}

void refresh_modules(uint64_t exclude_base) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  std::vector<dl_phdr_info> infos;
  real_iterate()(
      [](dl_phdr_info* info, size_t, void* data) {
        static_cast<std::vector<dl_phdr_info>*>(data)->push_back(*info);
        return 0;
      },
      &infos);

  std::vector<bool> seen(s.modules->size(), false);
  for (const dl_phdr_info& info : infos) {
    Module m = describe(&info);
    if (m.segments.empty()) continue;
    bool known = false;
    for (size_t i = 0; i < s.modules->size(); ++i) {
      Module& old = (*s.modules)[i];
      if (!old.unloaded && old.load_bias == m.load_bias && old.path == m.path &&
          old.start() == m.start()) {
        seen[i] = known = true;
        break;
      }
    }
    if (!known) {
      if (auto f = s.observer.loaded) f(m);
      s.modules->push_back(std::move(m));
    }
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i] && !(*s.modules)[i].unloaded) {
      (*s.modules)[i].unloaded = true;
      if (auto f = s.observer.unloaded) f((*s.modules)[i]);
    }

  handler::publish_phdr_snapshot(infos.data(), infos.size(), exclude_base);
}

std::vector<Module> recorded_modules() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return *s.modules;
}

}  // namespace omprof

extern "C" __attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  using Fn = void* (*)(const char*, int);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "dlopen"));
  void* h = real(file, mode);
  if (h) omprof::refresh_modules();
  return h;
}

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
  using Fn = int (*)(void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "dlclose"));
  // Record what is about to go away (samples may refer to it), and stop handing its program
  // headers to handlers before they are unmapped: publish a copy without it and let handlers
  // that may still read the previous copy finish. If it stays loaded (other references), the
  // refresh after the real dlclose publishes it again.
  using namespace omprof;
  link_map* lm = nullptr;
  const bool known = dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm;
  refresh_modules(known ? uint64_t(lm->l_addr) : ~uint64_t(0));
  if (auto wait = g_quiescence_wait.load()) wait();
  int rc = real(handle);
  refresh_modules();
  return rc;
}
