#include "viewer/model.h"

#include "omp/states.h"
#include "unwind/module_kind.h"

namespace omprof::viewer {

namespace {

omp::FrameStack expand_location(const format::Profile& p, uint64_t loc_id) {
  omp::FrameStack out;
  const v1::Location& loc = p.location(loc_id);
  const v1::Mapping* m = p.mapping(loc.mapping_id());
  const bool runtime = m && m->is_omp_runtime();
  const bool system = m && unwind::is_system_module(p.str(m->filename()));
  if (loc.line_size() == 0) {
    // Not symbolized: name the module, so that its frames still aggregate.
    std::string module = m ? p.str(m->filename()) : "";
    const size_t slash = module.rfind('/');
    if (slash != std::string::npos) module = module.substr(slash + 1);
    omp::Frame f;
    f.name = module.empty() ? "??" : "[" + module + "]";
    f.runtime = runtime;
    f.system = system;
    out.push_back(f);
    return out;
  }
  for (const auto& line : loc.line()) {
    const v1::Function& fn = p.function(line.function_id());
    omp::Frame f;
    f.name = p.str(fn.name());
    if (f.name.empty()) {
      // No symbol (a stripped library's static function): name the module, not the address,
      // so that its frames still aggregate.
      std::string module = m ? p.str(m->filename()) : "";
      f.name = "[" +
               module.substr(module.rfind('/') == std::string::npos ? 0 : module.rfind('/') + 1) +
               "]";
      if (f.name == "[]") f.name = "??";
    }
    f.file = p.str(fn.filename());
    f.line = line.line();
    f.runtime = runtime;
    f.system = system;
    out.push_back(f);
  }
  return out;
}

}  // namespace

omp::FrameStack expand_stack(const format::Profile& p, uint64_t stack_id) {
  omp::FrameStack out;
  for (uint64_t loc : p.stack(stack_id).location_id()) {
    omp::FrameStack part = expand_location(p, loc);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

omp::Frame construct_frame(const format::Profile& p, const v1::ForkRecord& f) {
  omp::Frame fr;
  if (f.codeptr_location_id() == 0) return fr;
  omp::FrameStack lines = expand_location(p, f.codeptr_location_id());
  if (!lines.empty()) fr = lines.front();  // innermost: where the construct is written
  return fr;
}

Model build_model(const format::Profile& p, omp::View view) {
  Model m;
  m.profile = &p;
  m.view = view;
  for (const auto& f : p.forks) {
    omp::ForkInfo info;
    info.parent_id = f.parent_id();
    if (f.stack_id()) info.stack = expand_stack(p, f.stack_id());
    info.construct = construct_frame(p, f);
    m.forks.emplace(f.id(), std::move(info));
  }
  auto fork_of = [&](uint64_t id) -> const omp::ForkInfo* {
    auto it = m.forks.find(id);
    return it == m.forks.end() ? nullptr : &it->second;
  };
  std::unordered_map<uint64_t, omp::FrameStack> raw_cache;
  const bool exact_waits = p.header.exact_waits();
  auto add = [&](uint32_t index, const v1::Sample& s, bool exact) {
    auto it = raw_cache.find(s.stack_id());
    if (it == raw_cache.end())
      it = raw_cache.emplace(s.stack_id(), expand_stack(p, s.stack_id())).first;
    ViewSample v;
    v.thread = index;
    v.count = exact ? 0 : s.count();
    v.weight_ns = s.weight_ns();
    v.state = omp::resolve_state(it->second, s.omp_state());
    // Exact waits replace the samples that saw the same waits spinning.
    if (exact_waits && !exact && omp::is_measured_exactly(v.state)) return uint64_t(0);
    v.exact = exact;
    v.fork_id = s.fork_id();
    v.omp_thread_num = s.omp_thread_num();
    v.region_node = s.region_node();
    const v1::Stack& stack = p.stack(s.stack_id());
    v.truncated = stack.truncated();
    v.stack = stack.unwind_failed()
                  ? it->second  // only the pc is known: nothing to cut or splice
                  : omp::build_stack(it->second, v.state, v.fork_id, view, fork_of);
    // The machine view shows samples as taken; a measured wait names its state at the leaf.
    if (exact && view == omp::View::kMachine) {
      if (const char* name = omp::describe_state(v.state).pseudo_frame) {
        omp::Frame f;
        f.name = name;
        f.pseudo = true;
        v.stack.insert(v.stack.begin(), f);
      }
    }
    // Say at the root what is missing, rather than let a partial stack pass for a whole one.
    if (stack.unwind_failed() || stack.truncated()) {
      omp::Frame marker;
      marker.name = stack.unwind_failed() ? "<unwind failed>" : "<truncated>";
      marker.pseudo = true;
      v.stack.push_back(marker);
    }
    m.total_weight_ns += v.weight_ns;
    m.total_samples += v.count;
    const uint64_t w = v.weight_ns;
    m.samples.push_back(std::move(v));
    return w;
  };
  const bool cpu_clock = p.header.clock() != v1::CLOCK_WALL;
  for (const auto& [index, t] : p.threads) {
    uint64_t accounted = 0;
    for (const auto& s : t.sample()) accounted += add(index, s, false);
    if (!exact_waits) continue;
    for (const auto& s : t.wait()) accounted += add(index, s, true);
    // CPU-time samples and exact waits leave out the thread's time off the CPU outside waits.
    if (cpu_clock) {
      const uint64_t end = t.end_ns() ? t.end_ns() : p.header.duration_ns();
      const uint64_t life = end > t.start_ns() ? end - t.start_ns() : 0;
      if (life > accounted) {
        ViewSample v;
        v.thread = index;
        v.weight_ns = life - accounted;
        v.state = omp::kStateOffCpu;
        v.exact = true;
        omp::Frame f;
        f.name = omp::describe_state(v.state).pseudo_frame;
        f.pseudo = true;
        v.stack = {f};
        m.total_weight_ns += v.weight_ns;
        m.samples.push_back(std::move(v));
      }
    }
  }
  return m;
}

}  // namespace omprof::viewer
