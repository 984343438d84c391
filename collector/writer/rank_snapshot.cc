#include "collector/writer/rank_snapshot.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/modules.h"
#include "collector/ompt/exact_waits.h"
#include "collector/openmp/runtime_status.h"
#include "collector/region_context.h"
#include "collector/runtime.h"
#include "collector/thread_registry.h"
#include "collector/writer/call_targets.h"
#include "collector/writer/mpi_facts.h"
#include "omp/states.h"
#include "proto/state_codes.h"
#include "proto/text.h"
#include "unwind/module_kind.h"
#include "unwind/plt.h"

namespace omprof::writer {

namespace {

// omp::resolve_sampled_state with frames classified by the module their address is in, and
// named as the dynamic linker knows them (dladdr: exported symbols, which is what the viewer
// finds in a stripped runtime too). Runs at MPI_Finalize, outside signal context.
class TaskwaitResolver {
 public:
  TaskwaitResolver(std::vector<unwind::Module> modules, bool tasks_in_waits)
      : modules_(std::move(modules)), tasks_in_waits_(tasks_in_waits) {}
  uint32_t resolve(uint32_t state, const uint64_t* frames, uint32_t depth) const {
    return omp::resolve_sampled_state(
        state, depth,
        [&](size_t i) {
          return is_runtime(frames[i]) || (i == 0 && !plt_entry(frames[0]).empty());
        },
        [&](size_t i) {
          const unwind::Module* m = module_of(frames[i]);
          return m && unwind::is_system_module(m->path);
        },
        [&](size_t i) -> const std::string& {
          // As the viewer does: the entry point the program's call site calls, if decodable
          // (call_targets.h), names a runtime frame it tail-called.
          if (i + 1 < depth && !is_runtime(frames[i + 1])) {
            const std::string& callee = callee_of(frames[i + 1]);
            if (!callee.empty()) return callee;
          }
          if (i == 0 && !plt_entry(frames[0]).empty()) return plt_entry(frames[0]);
          return name_of(frames[i]);
        },
        [&](size_t i) {
          const unwind::Module* m = module_of(frames[i]);
          return m && unwind::is_omprof_module(m->path);
        },
        tasks_in_waits_);
  }

 private:
  bool is_runtime(uint64_t pc) const {
    const unwind::Module* m = module_of(pc);
    return m && unwind::is_omp_runtime_module(m->path);
  }
  // The runtime entry point that the PLT stub at `pc` jumps to, read from its module's file as
  // the viewer reads it (unwind/plt.h); "" when `pc` is in no such stub.
  const std::string& plt_entry(uint64_t pc) const {
    static const std::string none;
    const unwind::Module* m = module_of(pc);
    if (!m || m->is_vdso || m->path.empty() || m->path[0] != '/') return none;
    auto [it, fresh] = plt_.try_emplace(m->path);
    if (fresh) it->second = runtime_stubs_of(m->path);
    const unwind::PltStub* stub = unwind::plt_stub_at(it->second, pc - m->load_bias);
    return stub ? stub->target : none;
  }
  static std::vector<unwind::PltStub> runtime_stubs_of(const std::string& path) {
    std::vector<unwind::PltStub> stubs;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return stubs;
    elf_version(EV_CURRENT);
    if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
      for (auto& s : unwind::plt_stubs(elf))
        if (omp::is_runtime_entry_name(s.target)) stubs.push_back(std::move(s));
      elf_end(elf);
    }
    close(fd);
    return stubs;
  }
  const std::string& callee_of(uint64_t caller_frame) const {
    auto it = callees_.find(caller_frame);
    if (it != callees_.end()) return it->second;
    return callees_.emplace(caller_frame, function_called_at(caller_frame)).first->second;
  }
  const unwind::Module* module_of(uint64_t pc) const {
    for (const auto& m : modules_)
      if (m.contains(pc)) return &m;
    return nullptr;
  }
  const std::string& name_of(uint64_t pc) const {
    auto it = names_.find(pc);
    if (it != names_.end()) return it->second;
    Dl_info info{};
    std::string name;
    if (dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_sname) name = info.dli_sname;
    return names_.emplace(pc, std::move(name)).first->second;
  }
  std::vector<unwind::Module> modules_;
  bool tasks_in_waits_;
  mutable std::unordered_map<uint64_t, std::string> names_, callees_;
  mutable std::unordered_map<std::string, std::vector<unwind::PltStub>> plt_;
};

}  // namespace

ranks::RankNumbers rank_snapshot(int rank, uint64_t duration_ns) {
  const uint64_t now = runtime().start_mono_ns + duration_ns;
  std::vector<unwind::Module> modules = recorded_modules();
  const omp::Measurement measured = openmp::run_measurement();
  const TaskwaitResolver taskwait(std::move(modules), measured.wrapper_states);
  const RegionData region_snapshot = region_data(int64_t(duration_ns));
  ranks::RankBuilder b(measured, duration_ns);
  b.set_window(mpi_facts().init_end_ns, duration_ns);
  for (uint32_t i = 0; i < thread_count(); ++i) {
    const ThreadState* ts = thread_at(i);
    if (!ts || ts->mpi_library_thread) continue;
    b.begin_thread(ts->start_ns, ts->end_ns.load());
    for (const regions::ThreadSnapshot& rt : region_snapshot.threads)
      if (rt.thread == ts->index)
        for (const regions::NodeSnapshot& n : rt.nodes)
          if (n.self_wall_ns > 0) b.region_self_wall(n.node, uint64_t(n.self_wall_ns));
    const uint32_t used = ts->table.used();
    for (uint32_t k = 0; k < used; ++k) {
      const SampleEntry& e = ts->table.used_entry(k);
      const uint32_t state = taskwait.resolve(e.ctx.omp_state, ts->table.frames_of(e), e.depth);
      b.sample(state, e.ctx.region_node, e.count, e.weight_ns, e.off_cpu_seen_ns);
    }
    for (uint32_t k = 0; k < ts->waits.used(); ++k) {
      const SampleEntry& e = ts->waits.used_entry(k);
      b.wait(e.ctx.omp_state, e.ctx.region_node, e.weight_ns);
    }
    // Waits still open (workers parked until the next parallel region) count up to now, as
    // they will count at exit.
    ompt::open_waits_so_far(ts, now, [&](const SampleContext& ctx, uint64_t ns) {
      b.wait(ctx.omp_state, ctx.region_node, ns);
    });
    b.end_thread();
  }
  return b.finish(rank, summary_rows(region_snapshot));
}

}  // namespace omprof::writer
