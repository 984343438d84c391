#include "collector/writer/call_targets.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include "unwind/module_kind.h"

namespace omprof::writer {

namespace {

// Reads this process's memory without faulting on an unmapped or unreadable address.
bool read_own_memory(uint64_t addr, unsigned char* out, size_t n) {
  iovec local{out, n};
  iovec remote{reinterpret_cast<void*>(addr), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

std::string exported_name_at(uint64_t addr) {
  Dl_info info{};
  if (addr && dladdr(reinterpret_cast<void*>(addr), &info) && info.dli_sname &&
      reinterpret_cast<uint64_t>(info.dli_saddr) == addr)
    return info.dli_sname;
  return "";
}

}  // namespace

std::string function_called_at(uint64_t caller_frame) {
  return exported_name_at(call_target(caller_frame + 1, read_own_memory));
}

std::unordered_map<uint64_t, std::string> runtime_call_targets(
    const StackTable& stacks, const std::vector<unwind::Module>& modules) {
  auto module_of = [&](uint64_t pc) -> const unwind::Module* {
    for (const auto& m : modules)
      if (m.contains(pc)) return &m;
    return nullptr;
  };
  auto in_runtime = [&](const unwind::Module* m) {
    return m && unwind::is_omp_runtime_module(m->path);
  };
  std::unordered_map<uint64_t, std::string> targets;
  for (size_t s = 0; s < stacks.size(); ++s) {
    const std::vector<uint64_t> frames = stacks.frames(s);
    for (size_t i = 0; i + 1 < frames.size(); ++i) {
      const uint64_t caller = frames[i + 1];
      if (targets.count(caller)) continue;
      const unwind::Module* callee_module = module_of(frames[i]);
      const unwind::Module* caller_module = module_of(caller);
      if (!in_runtime(callee_module) || !caller_module || in_runtime(caller_module) ||
          caller_module->is_vdso || unwind::is_system_module(caller_module->path) ||
          caller_module->unloaded)
        continue;
      targets.emplace(caller, function_called_at(caller));
    }
  }
  for (auto it = targets.begin(); it != targets.end();)
    it = it->second.empty() ? targets.erase(it) : std::next(it);
  return targets;
}

}  // namespace omprof::writer
