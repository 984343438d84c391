#include "omp/user_model.h"

#include <algorithm>
#include <cstring>

#include "omp/states.h"
#include "omp/task_constructs.h"
#include "proto/text.h"

namespace omprof::omp {

namespace {

// The innermost stretch of user frames: skip runtime frames at the leaf, then take frames up
// to the next runtime frame. With `to_root`, take everything below instead (outside regions).
FrameStack innermost_user_segment(const FrameStack& raw, bool to_root) {
  size_t i = 0;
  while (i < raw.size() && raw[i].runtime) ++i;
  FrameStack seg;
  for (; i < raw.size(); ++i) {
    if (raw[i].runtime) {
      if (to_root) continue;
      break;
    }
    seg.push_back(raw[i]);
  }
  return seg;
}

Frame region_frame(const ForkInfo& fork) {
  Frame region;
  region.name = fork.task ? task_frame_name(fork) : region_frame_name(fork);
  region.file = fork.construct.file;
  region.line = fork.construct.line;
  region.pseudo = true;
  return region;
}

// Call path of a region's construct, root side last: the encountering thread's user segment,
// then (nested regions) the enclosing region's frame and prefix. Depth-limited against cycles.
FrameStack region_prefix(const ForkInfo& fork,
                         const std::function<const ForkInfo*(uint64_t)>& fork_of, int depth) {
  const ForkInfo* parent = fork.parent_id ? fork_of(fork.parent_id) : nullptr;
  FrameStack seg = innermost_user_segment(resolve_runtime_frames(fork.stack), parent == nullptr);
  seg.erase(seg.begin(), seg.begin() + long(std::min(fork.frames_inside_construct, seg.size())));
  if (parent && depth < 64) {
    seg.push_back(region_frame(*parent));
    FrameStack up = region_prefix(*parent, fork_of, depth + 1);
    seg.insert(seg.end(), up.begin(), up.end());
  }
  return seg;
}

// Inside MPI the leaf frames are the MPI library's, down to omprof's wrapper (a runtime frame):
// the caller of the wrapper is where the user's code called MPI. Without a wrapper frame (the
// sample fell outside it) the stack is kept.
// MPICH's Fortran bindings call the C entry point, so a Fortran call passes omprof's Fortran
// wrapper, MPICH's binding (pmpi_allreduce_, also named MPI_ALLREDUCE) and omprof's C wrapper:
// the cut is at the outermost of them.
FrameStack without_mpi_library(const FrameStack& raw, uint32_t state) {
  if (!is_mpi(state)) return raw;
  const char* call = format::mpi_call_name(format::mpi_call_of(state));
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!raw[i].runtime) continue;
    for (size_t j = i + 1; j < raw.size(); ++j) {
      if (raw[j].runtime)
        i = j;
      else if (!format::names_mpi_call(raw[j].name.str(), call, true))
        break;
    }
    return FrameStack(raw.begin() + long(i), raw.end());
  }
  return raw;
}

Frame pseudo(const char* name) {
  Frame f;
  f.name = name;
  f.pseudo = true;
  return f;
}

}  // namespace

bool parse_view(const std::string& s, View& v) {
  if (s == "user")
    v = View::kUser;
  else if (s == "expert")
    v = View::kExpert;
  else if (s == "machine")
    v = View::kMachine;
  else
    return false;
  return true;
}

FrameStack resolve_runtime_frames(FrameStack raw) {
  for (size_t i = raw.size(); i-- > 0;)
    if (!raw[i].runtime && raw[i].system && i + 1 < raw.size()) raw[i].runtime = raw[i + 1].runtime;
  return raw;
}

uint32_t resolve_state(const FrameStack& raw, uint32_t state, bool tasks_in_waits,
                       const TaskConstructLines* constructs) {
  const uint32_t resolved = resolve_sampled_state(
      state, raw.size(), [&](size_t i) { return raw[i].runtime; },
      [&](size_t i) { return raw[i].system; },
      [&](size_t i) -> const std::string& {
        // The entry point the program called, if its call site was resolved: the outermost
        // runtime frame may be an internal function that entry point tail-called.
        return i + 1 < raw.size() && !raw[i + 1].callee.empty() ? raw[i + 1].callee : raw[i].name;
      },
      [&](size_t i) { return raw[i].omprof; }, tasks_in_waits);
  return constructs ? construct_code_state(resolved, constructs->at_construct(raw)) : resolved;
}

bool is_outlined_name(const std::string& n) {
  return n.rfind(".omp_outlined.", 0) == 0 || n.find("._omp_fn.") != std::string::npos ||
         n.rfind(".omp_task_entry.", 0) == 0 ||
         n.find(".omp_outlined._debug__") != std::string::npos;
}

bool is_thread_root_name(const std::string& n) {
  static const char* roots[] = {
      "_start",  "__libc_start_main", "__libc_start_call_main", "start_thread", "clone", "clone3",
      "__clone", "__clone3"};
  for (const char* r : roots)
    if (n == r) return true;
  return false;
}

std::string short_function_name(const std::string& name) {
  // Member functions end in qualifiers after the parameter list: "f(int) const &".
  size_t end = name.size();
  for (bool trimmed = true; trimmed;) {
    trimmed = false;
    while (end > 0 && name[end - 1] == ' ') --end;
    for (const char* q : {"const", "volatile", "noexcept", "&"}) {
      const size_t n = std::strlen(q);
      if (end >= n && name.compare(end - n, n, q) == 0) {
        end -= n;
        trimmed = true;
        break;
      }
    }
  }
  if (end == 0 || name[end - 1] != ')') return name;
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

bool is_region_frame_name(const std::string& name) {
  return name.size() > 2 && name.front() == '<' && name.back() == '>' &&
         (name.rfind("<omp parallel", 0) == 0 || name.find(": omp parallel") != std::string::npos);
}

namespace {
std::string construct_frame_name(const ForkInfo& fork, const char* construct) {
  // Named after the function that holds the construct, as the Oracle analyzer does: a flat
  // profile of many regions then says which function each one is.
  const std::string function = short_function_name(fork.construct.name);
  const std::string where = construct_place(fork.construct);
  std::string name = "<";
  if (!function.empty()) name += function + ": ";
  name += construct;
  if (!where.empty()) name += " @ " + where;
  return name + ">";
}
}  // namespace

std::string region_frame_name(const ForkInfo& fork) {
  return construct_frame_name(fork, "omp parallel");
}

std::string task_frame_name(const ForkInfo& task) {
  return construct_frame_name(task, "omp task");
}

bool is_task_frame_name(const std::string& name) {
  return name.size() > 2 && name.front() == '<' && name.back() == '>' &&
         (name.rfind("<omp task", 0) == 0 || name.find(": omp task") != std::string::npos);
}

std::string construct_place(const Frame& construct) {
  if (!construct.file.empty())
    return text::base_name(construct.file) + ":" + std::to_string(construct.line);
  return construct.code_place;
}

namespace {
// The sample's own user frames: the innermost user segment of its stack; inside a region
// (`fork`) only the frames above the fork point, since a worker's thread roots do not belong to
// the sample, nor do the master's own frames below the construct (when it waits at the join
// barrier its innermost user frames are the construct's caller, already in the prefix).
FrameStack sample_segment(const FrameStack& raw, uint32_t state, const ForkInfo* fork,
                          const std::function<const ForkInfo*(uint64_t)>& fork_of) {
  FrameStack seg = innermost_user_segment(resolve_runtime_frames(without_mpi_library(raw, state)),
                                          fork == nullptr);
  if (!fork) return seg;
  while (!seg.empty() && is_thread_root_name(seg.back().name)) seg.pop_back();
  const ForkInfo* parent = fork->parent_id ? fork_of(fork->parent_id) : nullptr;
  FrameStack below = innermost_user_segment(resolve_runtime_frames(fork->stack), parent == nullptr);
  while (!below.empty() && is_thread_root_name(below.back().name)) below.pop_back();
  if (!below.empty() && seg.size() >= below.size() &&
      std::equal(
          below.begin(), below.end(), seg.end() - long(below.size()),
          [](const Frame& a, const Frame& b) { return a.name == b.name && a.line == b.line; }))
    seg.resize(seg.size() - below.size());
  return seg;
}
}  // namespace

FrameStack build_stack(const FrameStack& raw, uint32_t state, uint64_t context_id, View view,
                       const std::function<const ForkInfo*(uint64_t)>& fork_of) {
  if (view == View::kMachine) return raw;
  const StateInfo info = describe_state(state);
  FrameStack out;
  if (is_idle(state)) {
    out.push_back(pseudo("<omp:idle>"));
    return out;
  }
  if (info.pseudo_frame) out.push_back(pseudo(info.pseudo_frame));
  const ForkInfo* fork = context_id ? fork_of(context_id) : nullptr;
  FrameStack seg = sample_segment(raw, state, fork, fork_of);
  // The region's body: the leafmost outlined function of the segment with a line (clang's
  // `.omp_outlined._debug__` under its wrapper, which has the construct's line). In the user
  // view it gives way to the region's frame, which takes its source line (where in the body the
  // thread is), so that `report --lines` still tells the lines of a parallel loop apart; the
  // construct's own line stays in the frame's name.
  const Frame* body = nullptr;
  for (Frame& f : seg) {
    if (view == View::kUser && is_outlined_name(f.name)) {
      if (!body && f.line > 0 && !f.file.empty()) body = &f;
      continue;
    }
    out.push_back(f);
  }
  if (fork) {
    Frame region = region_frame(*fork);
    if (body) {
      region.file = body->file;
      region.line = body->line;
    }
    out.push_back(region);
    FrameStack prefix = region_prefix(*fork, fork_of, 0);
    for (Frame& f : prefix) {
      if (view == View::kUser && is_outlined_name(f.name)) continue;
      out.push_back(f);
    }
  }
  while (!out.empty() && is_thread_root_name(out.back().name)) out.pop_back();
  // A work sample outside every parallel region with no frame of the program's own (a thread
  // the runtime is starting or retiring): its time still needs a place in the tree.
  if (out.empty()) {
    const bool in_runtime =
        std::any_of(raw.begin(), raw.end(), [](const Frame& f) { return f.runtime; });
    out.push_back(pseudo(in_runtime ? "<omp runtime>" : "<thread start>"));
  }
  return out;
}

}  // namespace omprof::omp
