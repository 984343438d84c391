#include "viewer/model.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>

#include "omp/states.h"
#include "proto/mpi_calls.h"
#include "proto/text.h"
#include "regions/off_cpu.h"
#include "viewer/state_measurement.h"

namespace omprof::viewer {

const omp::Frame* mpi_caller(const omp::FrameStack& raw, uint32_t state) {
  // The entry points named like the call (the library's own may share the wrapper's name) and
  // omprof's code between them; MPICH's Fortran bindings call the C entry point, so a Fortran
  // call passes mpi_allreduce_ (omprof's) -> pmpi_allreduce_ (MPICH's) -> MPI_Allreduce
  // (omprof's) -> PMPI_Allreduce (MPICH's). The program's frame is the first past them all.
  if (const char* call = format::mpi_call_name(format::mpi_call_of(state))) {
    using format::names_mpi_call;
    for (size_t i = 0; i + 1 < raw.size(); ++i) {
      if (!names_mpi_call(raw[i].name.str(), call)) continue;
      // The caller: the first frame past the entry points and omprof's own code.
      for (size_t j = i + 1; j < raw.size(); ++j)
        if (!raw[j].omprof && !names_mpi_call(raw[j].name.str(), call, true)) return &raw[j];
      return nullptr;
    }
  }
  // No symbols for the wrapper: the frame above the first runtime frame from the leaf.
  for (size_t i = 0; i + 1 < raw.size(); ++i)
    if (raw[i].runtime) return &raw[i + 1];
  return nullptr;
}

namespace {

// The thread's exact self wall time per explicit region node.
std::map<uint64_t, uint64_t> self_wall_of(const format::Profile& p, uint32_t thread) {
  std::map<uint64_t, uint64_t> out;
  for (const auto& r : p.region_stats)
    if (r.thread_index() == thread && r.self_wall_ns() > 0)
      out[r.node_id()] += uint64_t(r.self_wall_ns());
  return out;
}

// CPU-time samples and exact waits leave out the thread's time off the CPU outside waits:
// preempted (a busy machine), blocked in a system call, sleeping. It is placed and spread by
// omp/accounting.h (place_thread_off_cpu), as the MPI rank numbers do: a part on a sample
// goes under an <off-cpu> leaf of its stack (or stays its sampled wait, a taskwait), a part
// without one at the root.
void add_off_cpu_time(Model& m, const omp::Measurement& measured, uint32_t thread,
                      const v1::ThreadProfile& t, uint64_t duration_ns, uint64_t accounted_ns) {
  const uint64_t end = t.end_ns() ? t.end_ns() : duration_ns;
  const uint64_t life = end > t.start_ns() ? end - t.start_ns() : 0;
  if (life <= accounted_ns) return;
  std::map<uint64_t, uint64_t> accounted_by_node;
  std::vector<omp::OffCpuDonor> donors;
  std::vector<size_t> donor_samples;  // indices into m.samples (which grows below)
  for (size_t i = 0; i < m.samples.size(); ++i) {
    const ViewSample& s = m.samples[i];
    if (s.thread != thread) continue;
    accounted_by_node[s.region_node] += s.weight_ns;
    if (s.exact || !omp::takes_off_cpu_time(measured, s.state)) continue;
    donors.push_back({s.region_node, s.state, s.weight_ns, s.off_cpu_seen_ns});
    donor_samples.push_back(i);
  }
  omp::Frame leaf;
  leaf.name = omp::describe_state(omp::kStateOffCpu).pseudo_frame;
  leaf.pseudo = true;
  for (const omp::OffCpuPart& part : omp::place_thread_off_cpu(
           life - accounted_ns, self_wall_of(*m.profile, thread), accounted_by_node, donors)) {
    ViewSample v;
    v.thread = thread;
    v.weight_ns = part.ns;
    v.state = part.state;
    v.exact = true;
    v.region_node = part.node;
    if (part.donor != omp::OffCpuPart::kNoDonor) {
      const ViewSample& like = m.samples[donor_samples[part.donor]];
      v.fork_id = like.fork_id;
      v.omp_thread_num = like.omp_thread_num;
      v.stack = like.stack;
    }
    if (v.state == omp::kStateOffCpu) {
      omp::FrameStack frames = v.stack.frames();
      frames.insert(frames.begin(), leaf);
      v.stack = StackRef(std::move(frames));
    }
    m.total_weight_ns += part.ns;
    m.samples.push_back(std::move(v));
  }
}

// A stack's raw frames, expanded once per stack id.
const omp::FrameStack& cached_raw_stack(ProfileFrames& frames,
                                        std::unordered_map<uint64_t, omp::FrameStack>& cache,
                                        uint64_t stack_id) {
  auto it = cache.find(stack_id);
  if (it == cache.end()) it = cache.emplace(stack_id, frames.stack(stack_id)).first;
  return it->second;
}

bool has_mpi_waits(const v1::ThreadProfile& t) {
  for (const auto& w : t.wait())
    if (omp::is_mpi(w.omp_state())) return true;
  return false;
}

// An exact MPI wait (one call site, context and call: its count and wall time) spread over the
// samples taken inside the same call from the same call site and context, in proportion to
// their weight: they give it full call paths (the call site alone names one frame). Without
// such samples it keeps the call site as its stack.
std::vector<v1::Sample> spread_mpi_wait(ProfileFrames& frames, const v1::Sample& wait,
                                        const std::vector<const v1::Sample*>& samples,
                                        std::unordered_map<uint64_t, omp::FrameStack>& raw_cache) {
  auto raw_of = [&](uint64_t stack_id) -> const omp::FrameStack& {
    return cached_raw_stack(frames, raw_cache, stack_id);
  };
  const omp::FrameStack& site = raw_of(wait.stack_id());
  std::vector<const v1::Sample*> same_site, same_function;
  uint64_t site_weight = 0, function_weight = 0;
  for (const v1::Sample* s : samples) {
    if (s->omp_state() != wait.omp_state() || s->fork_id() != wait.fork_id() ||
        s->region_node() != wait.region_node() || site.empty())
      continue;
    const omp::Frame* caller = mpi_caller(raw_of(s->stack_id()), s->omp_state());
    if (!caller || caller->name != site.front().name) continue;
    same_function.push_back(s);
    function_weight += s->weight_ns();
    if (caller->line == site.front().line) {
      same_site.push_back(s);
      site_weight += s->weight_ns();
    }
  }
  // Return addresses may fall on the line after the call: same function is good enough.
  const auto& donors = same_site.empty() ? same_function : same_site;
  const uint64_t donor_weight = same_site.empty() ? function_weight : site_weight;
  if (donors.empty() || donor_weight == 0) return {wait};
  std::vector<uint64_t> weights;
  weights.reserve(donors.size());
  for (const v1::Sample* d : donors) weights.push_back(d->weight_ns());
  const std::vector<uint64_t> parts = regions::proportional_parts(wait.weight_ns(), weights);
  // The idle workers' time the call is blamed for goes with its time (a donor's own is that of
  // a sample, which the exact call replaces).
  const std::vector<uint64_t> blame = regions::proportional_parts(wait.idle_workers_ns(), weights);
  std::vector<v1::Sample> out;
  for (size_t k = 0; k < donors.size(); ++k) {
    v1::Sample share = *donors[k];
    share.set_weight_ns(parts[k]);
    share.set_idle_workers_ns(blame[k]);
    share.set_count(0);
    out.push_back(std::move(share));
  }
  return out;
}

// One thread's samples and exact waits, through `add` (thread, sample, exact, the sample's
// index in the thread's list or -1) -> time added; returns the thread time they account for.
template <typename Add>
uint64_t add_thread(ProfileFrames& frames, const omp::Measurement& measured, uint32_t index,
                    const v1::ThreadProfile& t, bool mpi_exact,
                    std::unordered_map<uint64_t, omp::FrameStack>& raw_cache, Add& add) {
  std::vector<const v1::Sample*> mpi_samples;
  uint64_t accounted = 0;
  for (int k = 0; k < t.sample_size(); ++k) {
    const v1::Sample& s = t.sample(k);
    if (mpi_exact && omp::is_mpi(s.omp_state()))
      mpi_samples.push_back(&s);  // only lends its call path to the exact MPI waits
    else
      accounted += add(index, s, false, k);
  }
  for (const auto& s : t.wait()) {
    if (omp::is_mpi(s.omp_state())) {
      for (const v1::Sample& share : spread_mpi_wait(frames, s, mpi_samples, raw_cache))
        accounted += add(index, share, true, -1);
    } else if (omp::measured_interval_counts(measured, s.omp_state())) {
      accounted += add(index, s, true, -1);
    }
  }
  return accounted;
}

}  // namespace

// libomp 14 reports the barrier at the end of a worksharing construct (omp for, sections,
// single) with the same kind as the barrier ending the parallel region. The region's own end
// barrier has the construct's code pointer (the master: the fork's) or none (a worker's join);
// an exact barrier wait at any other code pointer inside the region ends a worksharing
// construct.
static uint32_t refine_implicit_barrier(const format::Profile& p, const v1::Sample& s,
                                        uint32_t state) {
  if (state != format::kWaitBarrierImplicit || s.stack_id() == 0 || s.fork_id() == 0 ||
      s.fork_id() > p.forks.size())
    return state;
  const v1::Stack& stack = p.stack(s.stack_id());
  const uint64_t fork_location = p.forks[s.fork_id() - 1].codeptr_location_id();
  if (stack.location_id_size() == 0 || fork_location == 0) return state;
  const bool at_construct =
      p.location(stack.location_id(0)).address() == p.location(fork_location).address();
  return at_construct ? state : uint32_t(format::kWaitBarrierImplicitWorkshare);
}

omp::Frame construct_frame(ProfileFrames& frames, const v1::ForkRecord& f) {
  const format::Profile& p = frames.profile();
  omp::Frame fr;
  if (f.codeptr_location_id() == 0) return fr;
  const omp::FrameStack& lines = frames.location(f.codeptr_location_id());
  if (!lines.empty()) fr = lines.front();  // innermost: where the construct is written
  // GCC's line table puts its call of the runtime in whatever the next statement inlined (a
  // timer read after the region: "clock_seconds @ spin.h:14"); the outlined body starts at the
  // pragma, and its name says which function holds it.
  if (const ProfileFrames::ConstructBody* body =
          f.task() ? nullptr : frames.construct_body(f.id())) {
    for (const omp::Frame& l : lines)
      if (omp::short_function_name(l.name.str()) == body->function) {
        fr = l;
        break;
      }
    fr.file = body->file;
    fr.line = body->line;
  }
  if (fr.line == 0) {
    // No line table: the offset in the function (symbolized here), else in the module file (a
    // profile symbolized by the collector, --symbolize), so that constructs stay apart.
    const v1::Location& loc = p.location(f.codeptr_location_id());
    auto off = p.function_offsets.find(f.codeptr_location_id());
    if (off != p.function_offsets.end() && !fr.name.empty() && fr.name[0] != '[')
      fr.code_place = fmt::format("{}+0x{:x}", omp::short_function_name(fr.name), off->second);
    else if (const v1::Mapping* m = p.mapping(loc.mapping_id()))
      fr.code_place = fmt::format("{}+0x{:x}", text::base_name(p.str(m->filename())),
                                  loc.address() - m->load_bias());
  }
  return fr;
}

namespace {
// A construct written in an outlined body (a task in a parallel region's or another task's
// block) is named after the function the program wrote it in: the enclosing construct's.
void name_constructs_in_outlined_bodies(std::unordered_map<uint64_t, omp::ForkInfo>& forks) {
  for (auto& [id, info] : forks) {
    const omp::ForkInfo* up = &info;
    for (int hops = 0; up && omp::is_outlined_name(up->construct.name) && hops < 256; ++hops) {
      auto it = up->parent_id ? forks.find(up->parent_id) : forks.end();
      up = it == forks.end() ? nullptr : &it->second;
    }
    if (up && up != &info) info.construct.name = up->construct.name;
  }
}

// A GCC build's call of the runtime can sit in the inline chain of the next statement (the
// construct's frame, construct_frame, is the chain's function the outlined body names): the
// frames inside it are not on the construct's call path.
void skip_frames_inlined_after_construct(ProfileFrames& frames, const v1::ForkRecord& f,
                                         omp::ForkInfo& info) {
  if (!f.codeptr_location_id() || info.construct.name.empty()) return;
  const omp::FrameStack& chain = frames.location(f.codeptr_location_id());
  size_t k = 0;
  while (k < chain.size() && chain[k].name != info.construct.name) ++k;
  if (k == 0 || k == chain.size()) return;
  auto site = std::find_if(info.stack.begin(), info.stack.end(),
                           [](const omp::Frame& fr) { return !fr.runtime && !fr.system; });
  if (size_t(info.stack.end() - site) < chain.size()) return;
  for (size_t i = 0; i < chain.size(); ++i)
    if (site[long(i)].name != chain[i].name || site[long(i)].line != chain[i].line) return;
  info.frames_inside_construct = k;
}

// The fork and task records, as the user model reads them.
std::unordered_map<uint64_t, omp::ForkInfo> fork_infos(ProfileFrames& frames) {
  std::unordered_map<uint64_t, omp::ForkInfo> forks;
  for (const auto& f : frames.profile().forks) {
    omp::ForkInfo info;
    info.parent_id = f.parent_id();
    if (f.stack_id()) info.stack = frames.stack(f.stack_id());
    info.construct = construct_frame(frames, f);
    if (!f.task()) skip_frames_inlined_after_construct(frames, f, info);
    info.task = f.task();
    // A task construct is where its creating code called the runtime: the innermost program
    // frame of its path. libomp's GOMP_task passes a stale code pointer at times (a gcc build's
    // task in a task read as the enclosing parallel construct).
    if (info.task)
      for (const omp::Frame& fr : omp::resolve_runtime_frames(info.stack))
        if (!fr.runtime) {
          if (!fr.file.empty() && fr.line > 0) info.construct = fr;
          break;
        }
    forks.emplace(f.id(), std::move(info));
  }
  name_constructs_in_outlined_bodies(forks);
  return forks;
}
}  // namespace

// A sample's stack in `view`: built from its raw stack (an unwind failure's is kept as is).
static omp::FrameStack view_stack(const omp::FrameStack& raw, const v1::Stack& stack,
                                  uint32_t state, uint64_t context, omp::View view,
                                  bool machine_leaf,
                                  const std::function<const omp::ForkInfo*(uint64_t)>& fork_of) {
  omp::FrameStack frames = stack.unwind_failed()
                               ? raw  // only the pc is known: nothing to cut or splice
                               : omp::build_stack(raw, state, context, view, fork_of);
  // The machine view shows samples as taken; a measured wait names its state at the leaf.
  if (machine_leaf) {
    if (const char* name = omp::describe_state(state).pseudo_frame) {
      omp::Frame f;
      f.name = name;
      f.pseudo = true;
      frames.insert(frames.begin(), f);
    }
  }
  // Say at the root what is missing, rather than let a partial stack pass for a whole one.
  if (stack.unwind_failed() || stack.truncated()) {
    omp::Frame marker;
    marker.name = stack.unwind_failed() ? "<unwind failed>" : "<truncated>";
    marker.pseudo = true;
    frames.push_back(marker);
  }
  return frames;
}

namespace {

// Turns a profile's samples and measured intervals into the model's view samples: each state
// resolved once per stack, each view stack built once per (stack, state, context) and shared.
class ModelBuilder {
 public:
  ModelBuilder(Model& m, const format::Profile& p, omp::View view)
      : m_(m), p_(p), view_(view), measured_(measurement_of(p.header)), frames_(p) {
    m_.profile = &p;
    m_.view = view;
    m_.forks = fork_infos(frames_);
    constructs_ = task_construct_lines(frames_);
  }
  void add_threads() {
    auto add = [this](uint32_t index, const v1::Sample& s, bool exact, int sample) {
      last_view_ = kNoView;
      const uint64_t w = this->add(index, s, exact);
      if (sample >= 0) m_.sample_views[index][size_t(sample)] = last_view_;
      return w;
    };
    for (const auto& [index, t] : p_.threads) {
      if (t.mpi_library_thread()) continue;  // not the program's thread (the header counts it)
      m_.sample_views[index].assign(size_t(t.sample_size()), kNoView);
      const bool mpi_exact = has_mpi_waits(t);
      const uint64_t accounted =
          add_thread(frames_, measured_, index, t, mpi_exact, raw_cache_, add);
      if (omp::places_off_cpu_time(measured_, mpi_exact))
        add_off_cpu_time(m_, measured_, index, t, p_.header.duration_ns(), accounted);
    }
  }

 private:
  // A sample (or an exact interval: `exact`) of thread `index`; the time it adds to the model.
  uint64_t add(uint32_t index, const v1::Sample& s, bool exact) {
    const omp::FrameStack& raw = cached_raw_stack(frames_, raw_cache_, s.stack_id());
    // An exact wait's stack is its construct's call site: nothing to resolve.
    uint32_t state =
        exact ? refine_implicit_barrier(p_, s, s.omp_state())
              : omp::resolve_state(raw, s.omp_state(), measured_.wrapper_states, &constructs_);
    state = omp::accounted_state(measured_, state, exact);
    // Exact waits replace the samples that saw the same waits spinning (add_thread keeps the
    // samples inside exact MPI calls apart: they lend their call paths to the calls).
    // Their counter deltas stay on their call paths (a sample of no time).
    const bool replaced = !exact && omp::repeats_measured_time(measured_, state, false);
    if (replaced) m_.replaced_samples += s.count();
    const bool lead_only = replaced && !has_counts(s);  // kept for the timeline's leads only
    ViewSample v;
    v.thread = index;
    v.count = exact || replaced ? 0 : s.count();
    v.weight_ns = replaced ? 0 : s.weight_ns();
    for (int c = 0; c < s.counter_size() && size_t(c) < v.counters.size(); ++c)
      v.counters[size_t(c)] = s.counter(c);
    v.state = state;
    v.exact = exact;
    v.fork_id = s.fork_id();
    v.task_origin = s.task_origin_id();
    v.omp_thread_num = s.omp_thread_num();
    v.region_node = s.region_node();
    v.idle_blame_ns = s.idle_workers_ns();
    v.off_cpu_seen_ns = s.off_cpu_seen_ns();
    v.in_collector = !exact && innermost_is_omprof(raw);
    v.truncated = p_.stack(s.stack_id()).truncated();
    v.stack = StackRef(shared_view_stack(raw, s.stack_id(), v));
    if (lead_only) {
      last_view_ = kReplacedView | uint32_t(m_.replaced.size());
      m_.replaced.push_back(std::move(v));
      return 0;
    }
    last_view_ = uint32_t(m_.samples.size());
    m_.total_weight_ns += v.weight_ns;
    m_.total_samples += v.count;
    const uint64_t w = v.weight_ns;
    m_.samples.push_back(std::move(v));
    return w;
  }
  uint32_t last_view_ = kNoView;  // where add() put its sample (Model.sample_views)
  static bool innermost_is_omprof(const omp::FrameStack& raw) {
    for (const omp::Frame& f : raw)
      if (!f.system) return f.omprof;
    return false;
  }
  static bool has_counts(const v1::Sample& s) {
    for (uint64_t c : s.counter())
      if (c) return true;
    return false;
  }
  std::shared_ptr<const omp::FrameStack> shared_view_stack(const omp::FrameStack& raw,
                                                           uint64_t stack_id, const ViewSample& v) {
    const bool machine_leaf = v.exact && view_ == omp::View::kMachine;
    const uint64_t context = v.task_origin ? v.task_origin : v.fork_id;
    auto& shared = view_stacks_[std::make_tuple(stack_id, v.state, context, machine_leaf)];
    if (!shared) {
      auto fork_of = [this](uint64_t id) -> const omp::ForkInfo* {
        auto it = m_.forks.find(id);
        return it == m_.forks.end() ? nullptr : &it->second;
      };
      shared = std::make_shared<const omp::FrameStack>(
          view_stack(raw, p_.stack(stack_id), v.state, context, view_, machine_leaf, fork_of));
    }
    return shared;
  }

  Model& m_;
  const format::Profile& p_;
  const omp::View view_;
  const omp::Measurement measured_;
  ProfileFrames frames_;
  omp::TaskConstructLines constructs_;
  std::unordered_map<uint64_t, omp::FrameStack> raw_cache_;
  // Samples with the same stack, state and context (parallel region or task) share their view
  // stack.
  std::map<std::tuple<uint64_t, uint32_t, uint64_t, bool>, std::shared_ptr<const omp::FrameStack>>
      view_stacks_;
};

}  // namespace

const ViewSample* Model::view_of(uint32_t thread, uint32_t sample) const {
  const auto views = sample_views.find(thread);
  if (views == sample_views.end() || sample >= views->second.size()) return nullptr;
  const uint32_t v = views->second[sample];
  if (v == kNoView) return nullptr;
  if (v & kReplacedView)
    return (v & ~kReplacedView) < replaced.size() ? &replaced[v & ~kReplacedView] : nullptr;
  return v < samples.size() ? &samples[v] : nullptr;
}

Model build_model(const format::Profile& p, omp::View view) {
  Model m;
  ModelBuilder(m, p, view).add_threads();
  return m;
}

std::vector<StackTotal> stack_totals(const Model& m) {
  std::vector<StackTotal> out;
  std::unordered_map<const void*, size_t> index;
  for (const ViewSample& s : m.samples) {
    auto [it, added] = index.emplace(s.stack.identity(), out.size());
    if (added) out.push_back(StackTotal{s.stack, 0, 0, 0, 0, 0, {}});
    StackTotal& t = out[it->second];
    for (size_t c = 0; c < s.counters.size(); ++c) t.counters[c] += s.counters[c];
    (omp::is_wait(s.state) ? t.wait_ns : t.work_ns) += s.weight_ns;
    t.idle_blame_ns += s.idle_blame_ns;
    if (!s.exact && s.count) {
      t.samples += s.count;
      t.var_ns2 += double(s.weight_ns) * double(s.weight_ns) / double(s.count);
    }
  }
  return out;
}

}  // namespace omprof::viewer
